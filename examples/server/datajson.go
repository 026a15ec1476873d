package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"
)

// field is a field of a data-file object: its JSON name, where its value
// goes, and, for a required one, what the message asking for it adds. A
// missing field and a null one are the same: they leave the value zero.
type field struct {
	name string
	// into is what json.Unmarshal decodes into, except that *time.Time and
	// **time.Time take an RFC 3339 string, and a func(json.RawMessage)
	// error decodes the value itself.
	into any
	need string // "" when the field may be left out
}

func opt(name string, into any) field              { return field{name: name, into: into} }
func req(name string, into any, need string) field { return field{name, into, need} }

// at is a required time.
func at(name string, into *time.Time) field { return req(name, into, rfc3339) }

const (
	boolean = "true or false"
	rfc3339 = "an RFC 3339 time such as 2026-03-01T09:00:00Z"
)

// reader decodes the objects of a data file into the store's types and
// names the fields the format does not have: they are ignored with a
// warning rather than refused, so that a file written for a richer format
// still loads.
type reader struct {
	ignored []string
	// after is what is left to do once the dataset is checked: keep the
	// files the items hold (they need the organization check gives them).
	after []func(*dataset) error
}

// later has f run on the dataset once it is checked.
func (r *reader) later(f func(*dataset) error) { r.after = append(r.after, f) }

// object decodes the JSON object raw into fs. A field whose name differs
// from a known one only in case is refused (encoding/json alone would take
// "dueat" for "dueAt" and serve the wrong value); one the format does not
// have at all is named in r.ignored, after where (the object's name in
// the file; "" for the file itself).
func (r *reader) object(raw json.RawMessage, where string, fs ...field) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return jsonError(err)
	}
	if m == nil {
		return errors.New("want a JSON object, not null")
	}
	for name := range m {
		if slices.ContainsFunc(fs, func(f field) bool { return f.name == name }) {
			continue
		}
		if i := slices.IndexFunc(fs, func(f field) bool { return strings.EqualFold(f.name, name) }); i >= 0 {
			return fmt.Errorf("unknown field %q: did you mean %q? (names are case-sensitive)", name, fs[i].name)
		}
		if where != "" {
			name = where + "." + name
		}
		r.ignored = append(r.ignored, name) // the whole file is refused if anything fails
	}
	for _, f := range fs {
		v, ok := m[f.name]
		if !ok || string(v) == "null" {
			if f.need != "" {
				return fmt.Errorf("%s is required (%s)", f.name, f.need)
			}
			continue
		}
		if err := f.decode(v); err != nil {
			return err
		}
	}
	return nil
}

// decode decodes raw, which is not null, into f.into. Times are kept in
// UTC at second precision, as the API shows them.
func (f field) decode(raw json.RawMessage) error {
	var t *time.Time
	switch p := f.into.(type) {
	case func(json.RawMessage) error:
		return p(raw)
	case *time.Time:
		t = p
	case **time.Time:
		t = new(time.Time)
		*p = t
	default:
		if err := json.Unmarshal(raw, f.into); err != nil {
			return fmt.Errorf("%s: %w", f.name, jsonError(err))
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("%s: %w", f.name, jsonError(err))
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("%s: %q is not %s", f.name, s, rfc3339)
	}
	*t = v.UTC().Truncate(time.Second)
	return nil
}

// jsonError makes the decoder's errors read as the file's terms.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
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
			return fmt.Errorf("want an object, not %s", te.Value)
		}
		return fmt.Errorf("%s is not %s", te.Value, want)
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON: %w", se)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("not valid JSON: it ends too soon")
	case errors.Is(err, io.EOF):
		return errors.New("empty file: want a JSON object")
	}
	return err
}

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
		delim, isDelim := tok.(json.Delim)
		name, isString := tok.(string)
		switch {
		case isDelim && (delim == '{' || delim == '['):
			if depth == 2 {
				index++ // an item of a section begins
			}
			depth++
			keyNext = depth == 1
		case isDelim:
			depth--
			keyNext = depth == 1
		case depth == 1 && keyNext && isString:
			section, index, keyNext = name, -1, false
		case depth == 1:
			keyNext = true // a section's value that is not a list
		case depth == 2:
			index++
		}
	}
}

// items parses each raw item of a section with parse, naming a bad item by
// its section, index and, when it has one, id. The items stay where parse
// put them, so that what it left for later (reader.later) changes them.
func items[T any](r *reader, section string, raws []json.RawMessage, parse func(*reader, json.RawMessage, string, *T) error) ([]T, error) {
	out := make([]T, len(raws))
	for i, raw := range raws {
		name := itemName(section, i, idOf(raw))
		if err := parse(r, raw, name, &out[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
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
