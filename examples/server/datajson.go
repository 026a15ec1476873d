package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// decodeStrict decodes one JSON object into the struct v points to,
// refusing anything after it and any field whose name differs from a known
// one only in case (encoding/json alone would take "dueat" for "dueAt" and
// serve the wrong value). Fields it does not know at all are skipped here;
// unknownFields names them, so the server can warn about them.
func decodeStrict(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	if fields == nil {
		return errors.New("want a JSON object, not null")
	}
	known := jsonNames(v)
	for name := range fields {
		if known[name] {
			continue
		}
		for k := range known {
			if strings.EqualFold(k, name) {
				return fmt.Errorf("unknown field %q: did you mean %q? (names are case-sensitive)", name, k)
			}
		}
		delete(fields, name)
	}
	whole, _ := json.Marshal(fields) // re-encoding what was just decoded cannot fail
	return jsonError(json.Unmarshal(whole, v))
}

// jsonNames returns the JSON names of the fields of the struct v points to.
func jsonNames(v any) map[string]bool {
	known := map[string]bool{}
	t := reflect.TypeOf(v).Elem()
	for i := 0; i < t.NumField(); i++ {
		known[strings.Split(t.Field(i).Tag.Get("json"), ",")[0]] = true
	}
	return known
}

// unknownFields names the fields of a section's items that the data-file
// format does not have, as `projects[2] (id "p3").owner` (section "": the
// file's own top-level names). They are ignored
// with a warning rather than refused: a file written for a newer or richer
// format still loads, and the operator sees what was left out.
func unknownFields(section string, raws []json.RawMessage, v any) []string {
	known := jsonNames(v)
	var out []string
	for i, raw := range raws {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			continue // parse has refused it already
		}
		for name := range fields {
			switch {
			case known[name]:
			case section == "": // the file itself
				out = append(out, name)
			default:
				out = append(out, itemName(section, i, idOf(raw))+"."+name)
			}
		}
	}
	return out
}

// jsonError makes the decoder's errors read as the file's terms: the
// field's JSON name rather than the Go type.
func jsonError(err error) error {
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "a " + te.Type.String()
		switch te.Type.Kind() {
		case reflect.Int, reflect.Int64:
			want = "an integer"
		case reflect.Bool:
			want = "true or false"
		case reflect.String:
			want = "a string"
		case reflect.Slice:
			want = "a list"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
		if te.Field == "" {
			return fmt.Errorf("want %s, not %s", want, te.Value)
		}
		return fmt.Errorf("%s: %s is not %s", te.Field, te.Value, want)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON: %w", se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errEndsTooSoon
	}
	if errors.Is(err, io.EOF) {
		return errors.New("empty file: want a JSON object")
	}
	return err
}

// errEndsTooSoon is a data file cut short.
var errEndsTooSoon = errors.New("not valid JSON: it ends too soon")

// whereBroken says where the JSON of data stops being valid: the item
// being read when it did (`invoices[19]`), and the line and column.
func whereBroken(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	section, index := "", -1
	depth, keyNext := 0, false // keyNext: at depth 1, the next string is a section name
	for {
		tok, err := dec.Token()
		if err != nil {
			offset := int64(len(data))
			var se *json.SyntaxError
			if errors.As(err, &se) {
				offset = se.Offset
			}
			line := 1 + bytes.Count(data[:offset], []byte("\n"))
			col := int(offset) - bytes.LastIndexByte(data[:offset], '\n')
			where := fmt.Sprintf("line %d, column %d", line, col)
			if section != "" && index >= 0 {
				return fmt.Sprintf("%s[%d], %s", section, index, where)
			}
			return where
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				if depth == 2 {
					index++ // an item of a section begins
				}
				depth++
				keyNext = depth == 1
				continue
			}
			depth--
			keyNext = depth == 1
		case string:
			switch {
			case depth == 1 && keyNext:
				section, index, keyNext = t, -1, false
			case depth == 1:
				keyNext = true
			case depth == 2:
				index++
			}
		default:
			if depth == 1 {
				keyNext = true
			} else if depth == 2 {
				index++
			}
		}
	}
}

// items parses each raw item of a section with parse, naming a bad item by
// its section, index and, when it has one, id.
func items[T any](section string, raws []json.RawMessage, parse func(json.RawMessage) (T, error)) ([]T, error) {
	out := make([]T, 0, len(raws))
	for i, raw := range raws {
		v, err := parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", itemName(section, i, idOf(raw)), err)
		}
		out = append(out, v)
	}
	return out, nil
}

// itemName names the i-th item of a section: `projects[3] (id "p9")`.
func itemName(section string, i int, id string) string {
	if id == "" {
		return fmt.Sprintf("%s[%d]", section, i)
	}
	return fmt.Sprintf("%s[%d] (id %q)", section, i, id)
}

// idOf returns the "id" of a raw item, or "" when it has none.
func idOf(raw json.RawMessage) string {
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.ID
}

// nestedUnknownFields names the fields of the objects inside threads and
// messages (about, author, attachments) that the format does not have, as
// `messages[0] (id "msg1").attachments[1].size`; like unknownFields, they
// are ignored with a warning.
func nestedUnknownFields(threads, messages []json.RawMessage) []string {
	var out []string
	nested := func(where string, raw json.RawMessage, v any) {
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return // null, or refused by parse already
		}
		known := jsonNames(v)
		for name := range fields {
			if !known[name] {
				out = append(out, where+"."+name)
			}
		}
	}
	for i, raw := range threads {
		var v struct {
			About json.RawMessage `json:"about"`
		}
		_ = json.Unmarshal(raw, &v)
		nested(itemName("threads", i, idOf(raw))+".about", v.About, &aboutJSON{})
	}
	for i, raw := range messages {
		var v struct {
			Author      json.RawMessage   `json:"author"`
			Attachments []json.RawMessage `json:"attachments"`
		}
		_ = json.Unmarshal(raw, &v)
		name := itemName("messages", i, idOf(raw))
		nested(name+".author", v.Author, &authorJSON{})
		for j, a := range v.Attachments {
			nested(fmt.Sprintf("%s.attachments[%d]", name, j), a, &attachmentJSON{})
		}
	}
	return out
}
