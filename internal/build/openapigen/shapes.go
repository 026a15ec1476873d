package openapigen

import "slices"

// The groups of response headers, in the order responses name them: every
// answer's, an organization's answer's (X-Sandbox), the rate limit's, and
// a cached answer's validators.
var (
	plainHeaders     = []string{"X-Request-Id", "X-Content-Type-Options", "Cache-Control"}
	orgHeaders       = []string{"X-Request-Id", "X-Sandbox", "X-Content-Type-Options", "Cache-Control"}
	rateHeaders      = []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"}
	validatorHeaders = []string{"ETag", "Vary"}
	fileHeaders      = hs(plainHeaders, []string{"Content-Disposition", "Accept-Ranges", "Last-Modified"})
)

// hs is the header names of groups, in order, in a new slice.
func hs(groups ...[]string) []string { return slices.Concat(groups...) }

// headerRefs is a response's headers: each name a reference to the header
// component of the same name.
func headerRefs(names []string) Obj {
	out := make(Obj, 0, len(names))
	for _, h := range names {
		out = append(out, KV{h, Ref("headers", h)})
	}
	return out
}

// responseOf is a response of description with the headers names and, when
// not nil, content.
func responseOf(description string, names []string, content Obj) Obj {
	out := O("description", description, "headers", headerRefs(names))
	if content != nil {
		out = append(out, KV{"content", content})
	}
	return out
}

// refHeader points resp's header name at the header component instead.
func refHeader(resp Obj, name, component string) Obj {
	resp.Get("headers").(Obj).Set(name, Ref("headers", component))
	return resp
}

// errorExample is an Error body; param only when not empty.
func errorExample(code, message, param string) Obj {
	e := O("code", code, "message", message)
	if param != "" {
		e = append(e, KV{"param", param})
	}
	return O("error", append(e, KV{"request_id", "7f3a9c2e4b1d4e6f8a0b2c4d6e8f0a1b"}))
}

// listExample is a first page of items, all on it.
func listExample(items ...any) Obj {
	return O("data", A(items...), "meta", O("page", 1, "per_page", 20, "total", len(items)))
}

// listResponse is a list's page of items, as schema, with its example.
func listResponse(description, schema string, items ...any) Obj {
	return bodyResponse(description, listHeaders, schema, listExample(items...))
}

// listSchema is a page of item: its data described so, and its Meta.
func listSchema(description, item, dataDescription string) Obj {
	return O("type", "object", "description", description, "additionalProperties", false,
		"required", A("data", "meta"), "properties", O(
			"data", O("type", "array", "items", Ref("schemas", item), "description", dataDescription),
			"meta", Ref("schemas", "Meta")))
}

// envelopeSchema is a single item in its envelope.
func envelopeSchema(description, item string) Obj {
	return O("type", "object", "description", description, "additionalProperties", false,
		"required", A("data"), "properties", O("data", Ref("schemas", item)))
}

// stringSchema is a string's schema; patternSchema one's that matches
// pattern, oneValueSchema one's that is value.
func stringSchema() Obj { return O("type", "string") }
func patternSchema(pattern string) Obj {
	return O("type", "string", "pattern", pattern)
}
func oneValueSchema(value string) Obj {
	return O("type", "string", "enum", A(value))
}

// countSchema is the schema of a rate-limit header's number.
var countSchema = O("type", "integer", "minimum", 0)

// header is a header component; requiredHeader one every response that
// names it carries.
func header(description string, schema Obj) Obj {
	return O("description", description, "schema", schema)
}
func requiredHeader(description string, schema Obj) Obj {
	return append(header(description, schema), KV{"required", true})
}
