package statusapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"slices"
	"time"

	"github.com/clientstatus/clientstatus/envelope"
	"github.com/clientstatus/clientstatus/store"
)

// A walk by cursor: every list answered with updatedSince, and every page
// of deletions, carries meta.next, the after of the items that follow
// (see docs/sync.md). A cursor is the position of the last item served
// (store.Position, to the microsecond) and a binding: the first bytes of
// a SHA-256 of the route's path, its filters (every parameter but page,
// limit and after, sorted) and the caller's key, so that it is refused
// anywhere else. It is opaque to clients: base64url, no padding.

// cursorVersion is the first byte of a cursor, so that its layout may
// change without a new one being read as an old one.
const cursorVersion = 1

// bindingSize is the length of a cursor's binding.
const bindingSize = 8

// errBadAfter answers an after that is malformed or was given by another
// route, filter or key.
var errBadAfter = envelope.InvalidParam(paramAfter, "after must be a meta.next of this very request (same route, filters and key); start again from page 1 without after")

// binding is the binding of the cursors of r's list for caller c: its
// path, its filters as given (but page, limit and after) and c's key.
func binding(r *http.Request, given map[string]string, c caller) [bindingSize]byte {
	h := sha256.New()
	write := func(s string) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(r.URL.EscapedPath())
	names := make([]string, 0, len(given))
	for name := range given {
		if name != paramPage && name != paramLimit && name != paramAfter {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		write(name)
		write(given[name])
	}
	write(c.Org.ID)
	write(c.KeyID)
	write(c.Subject)
	if c.Sandbox {
		write("sandbox")
	}
	var out [bindingSize]byte
	copy(out[:], h.Sum(nil))
	return out
}

// encodeCursor is the cursor of the position p under binding b.
func encodeCursor(b [bindingSize]byte, p store.Position) string {
	buf := make([]byte, 0, 1+bindingSize+8+2+len(p.Kind)+len(p.ID))
	buf = append(buf, cursorVersion)
	buf = append(buf, b[:]...)
	buf = binary.BigEndian.AppendUint64(buf, uint64(p.At.UnixMicro()))
	buf = binary.AppendUvarint(buf, uint64(len(p.Kind)))
	buf = append(buf, p.Kind...)
	buf = append(buf, p.ID...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// decodeCursor reads a cursor made by encodeCursor under binding b;
// errBadAfter for anything else.
func decodeCursor(b [bindingSize]byte, s string) (store.Position, error) {
	buf, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(buf) < 1+bindingSize+8+1 || buf[0] != cursorVersion || !bytes.Equal(buf[1:1+bindingSize], b[:]) {
		return store.Position{}, errBadAfter
	}
	rest := buf[1+bindingSize:]
	at := time.UnixMicro(int64(binary.BigEndian.Uint64(rest))).UTC()
	rest = rest[8:]
	n, size := binary.Uvarint(rest)
	if size <= 0 || n > uint64(len(rest)-size) {
		return store.Position{}, errBadAfter
	}
	rest = rest[size:]
	p := store.Position{At: at, Kind: store.Kind(rest[:n]), ID: string(rest[n:])}
	if p.ID == "" || p.Kind != "" && !p.Kind.Valid() {
		return store.Position{}, errBadAfter
	}
	return p, nil
}

// walk binds q, a list of changes, to its request and caller, and reads
// its after, if given: q.After is then the position it names.
func (q *listParams) walk(r *http.Request, c caller) error {
	if !q.sync {
		return nil
	}
	q.bind = binding(r, q.given, c)
	v, ok := q.given[paramAfter]
	if !ok {
		return nil
	}
	p, err := decodeCursor(q.bind, v)
	if err != nil {
		return err
	}
	q.After = p
	return nil
}

// positionOf is an item's place in a list of changes.
func positionOf(v any) store.Position {
	switch v := v.(type) {
	case store.Project:
		return store.Position{At: v.UpdatedAt, ID: v.ID}
	case store.Milestone:
		return store.Position{At: v.UpdatedAt, ID: v.ID}
	case store.Deliverable:
		return store.Position{At: v.UpdatedAt, ID: v.ID}
	case store.Invoice:
		return store.Position{At: v.UpdatedAt, ID: v.ID}
	case store.Thread:
		return store.Position{At: v.UpdatedAt, ID: v.ID}
	case store.Message:
		return store.Position{At: v.UpdatedAt, ID: v.ID}
	case store.Deletion:
		return store.Position{At: v.DeletedAt, Kind: v.Kind, ID: v.ID}
	}
	panic("statusapi: no position for a list of changes of this type")
}

// nextOf is the meta.next of page p of a list of changes asked with q:
// the cursor of its last item when more items follow, else the empty
// cursor (null); nil for any other list.
func nextOf[T any](q listParams, p store.Page[T]) *envelope.Cursor {
	if !q.sync {
		return nil
	}
	served := len(p.Items)
	if q.After.IsZero() {
		served += (q.Page - 1) * q.Limit
	}
	if len(p.Items) == 0 || served >= p.Total {
		return &envelope.Cursor{}
	}
	return &envelope.Cursor{After: encodeCursor(q.bind, positionOf(p.Items[len(p.Items)-1]))}
}
