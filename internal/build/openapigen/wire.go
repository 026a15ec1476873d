package openapigen

import (
	"strings"

	"github.com/clientstatus/clientstatus/internal/apidoc"
)

// The headers of a cached answer with a body; a list's also Link.
var (
	itemHeaders = hs(orgHeaders, validatorHeaders, rateHeaders)
	listHeaders = hs(itemHeaders, []string{"Link"})
)

// wireComponents adds to schemas and responses what the wire types
// make: each type's schema and, for a resource, its status enum, its list and envelope schemas and their responses.
func wireComponents(wires []apidoc.Wire, schs, resps *Obj, heads map[string]string) error {
	for _, w := range wires {
		s, err := Schema(w.Type, w.Description, w.Fields)
		if err != nil {
			return err
		}
		ex, err := examples(w.Name, w.Examples)
		if err != nil {
			return err
		}
		if len(ex) > 0 {
			s = s.insertAfter("description", KV{"examples", ex})
		}
		*schs = append(*schs, KV{w.Name, s})
		if !w.Resource {
			continue
		}
		kind := strings.ToLower(w.Name[:1]) + w.Name[1:]
		plural := kind + "s"
		if len(w.Statuses) > 0 {
			enum := A()
			for _, st := range w.Statuses {
				enum = append(enum, st)
			}
			*schs = append(*schs, KV{w.Name + "Status", O("type", "string", "description", "The state of "+article(kind)+" "+kind+".", "enum", enum)})
		}
		*schs = append(*schs,
			KV{w.Name + "List", listSchema("One page of "+plural+".", w.Name,
				"The page's "+plural+", in the list's documented order; `[]` past the last page.")},
			KV{w.Name + "Envelope", envelopeSchema("A single "+kind+".", w.Name)},
		)
		listEx := listExample(ex...)
		var itemEx Obj
		if len(ex) > 0 {
			itemEx = O("data", ex[0])
		}
		*resps = append(*resps,
			KV{w.Name + "ListResponse", bodyResponse("One page of "+plural+", with paging information.", listHeaders, w.Name+"List", listEx)},
			KV{w.Name + "Response", bodyResponse("The "+kind+".", itemHeaders, w.Name+"Envelope", itemEx)},
		)
		heads[w.Name+"ListResponse"] = "ListHead"
		heads[w.Name+"Response"] = "ProjectHead"
	}
	return nil
}

// bodyResponse is a JSON response with headers, schema and example.
func bodyResponse(description string, names []string, schema string, example Obj) Obj {
	media := O("schema", Ref("schemas", schema))
	if example != nil {
		media = append(media, KV{"example", example})
	}
	return responseOf(description, names, O("application/json", media))
}

// article is "a" or "an" before word.
func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// insertAfter returns o with kv after the member key (at the end when
// there is none).
func (o Obj) insertAfter(key string, kv KV) Obj {
	for i, m := range o {
		if m.Key == key {
			out := append(Obj(nil), o[:i+1]...)
			out = append(out, kv)
			return append(out, o[i+1:]...)
		}
	}
	return append(o, kv)
}
