package openapigen

import "github.com/clientstatus/clientstatus/internal/apidoc"

// paramObj is the component of the parameter p.
func paramObj(p apidoc.Param) Obj {
	o := O("name", p.Name, "in", p.In)
	if p.Required || p.Optional {
		o = append(o, KV{"required", p.Required})
	}
	o = append(o, KV{"description", p.Description})
	if p.Form {
		o = append(o, KV{"style", "form"}, KV{"explode", false})
	}
	o = append(o, KV{"schema", schemaObj(p.Schema)})
	if len(p.Examples) > 0 {
		ex := Obj{}
		for _, e := range p.Examples {
			ex = append(ex, KV{e.Name, O("value", e.Value)})
		}
		o = append(o, KV{"examples", ex})
	}
	return o
}

// schemaObj is the schema s.
func schemaObj(s apidoc.Schema) Obj {
	if s.Ref != "" {
		return Ref("schemas", s.Ref)
	}
	o := O("type", s.Type)
	for _, kv := range []KV{{"format", s.Format}, {"pattern", s.Pattern}} {
		if kv.Value != "" {
			o = append(o, kv)
		}
	}
	for _, kv := range []KV{{"minLength", s.MinLength}, {"minimum", s.Minimum}, {"maximum", s.Maximum}, {"default", s.Default}, {"minItems", s.MinItems}} {
		if kv.Value != 0 {
			o = append(o, kv)
		}
	}
	if len(s.Enum) > 0 {
		enum := A()
		for _, v := range s.Enum {
			enum = append(enum, v)
		}
		o = append(o, KV{"enum", enum})
	}
	if s.Items != "" {
		o = append(o, KV{"items", Ref("schemas", s.Items)})
	}
	return o
}
