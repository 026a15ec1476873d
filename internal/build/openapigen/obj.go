package openapigen

import (
	"bytes"
	"encoding/json"
)

// Obj is a JSON object that keeps its keys in the order given, so that
// the document reads in a stable, deliberate order.
type Obj []KV

// KV is one member of an Obj.
type KV struct {
	Key   string
	Value any
}

// O makes an Obj of alternating keys and values.
func O(kv ...any) Obj {
	out := make(Obj, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, KV{kv[i].(string), kv[i+1]})
	}
	return out
}

// A makes a JSON array.
func A(v ...any) []any { return append([]any{}, v...) }

// Get returns the value of key, nil when absent.
func (o Obj) Get(key string) any {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// Set returns o with key set to v, in place when present, else appended.
func (o Obj) Set(key string, v any) Obj {
	for i, kv := range o {
		if kv.Key == key {
			o[i].Value = v
			return o
		}
	}
	return append(o, KV{key, v})
}

// MarshalJSON writes the members in order.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping, so that the document's
// texts keep their < > & as written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Ref is a JSON reference to a component: Ref("schemas", "Project").
func Ref(section, name string) Obj {
	return O("$ref", "#/components/"+section+"/"+name)
}
