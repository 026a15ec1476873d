package statusapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// answer is an encoded 200 of n bytes.
func answer(n int, tag string) *encoded {
	return &encoded{status: http.StatusOK, body: []byte(strings.Repeat("x", n)), etag: tag, etagValue: []string{tag}}
}

// TestCacheEvictionLeavesTags: answers pushed out for room leave their
// tags, most recent first, bounded by an eighth of the cache; an answer
// kept again under a tag's key is an answer again.
func TestCacheEvictionLeavesTags(t *testing.T) {
	is := is.New(t)
	key := func(i int) cacheKey {
		return cacheKey{org: "o", path: "/v1/invoices", query: fmt.Sprintf("page=%03d", i)}
	}
	tagCost := cost(key(10), &encoded{etag: `W/"10"`}) // give or take a digit
	c := newResponseCache(20 * tagCost * 8)            // room for 20 tags
	for i := range 100 {
		c.put(key(i), 7, answer(int(c.max/20)-400, fmt.Sprintf(`W/"%d"`, i))) // about 20 answers fit
	}
	answers, tags := 0, 0
	for i := range 100 {
		e, tag, v, found := c.get(key(i))
		switch {
		case e != nil:
			answers++
			is.True(i >= 78) // the most recent answers
		case tag != nil:
			tags++
			is.Equal(tag.etag, fmt.Sprintf(`W/"%d"`, i)) // its own tag
			is.Equal(tag.body, nil)
			is.Equal(v, int64(7)) // at its answer's version
			is.True(i >= 57)      // the most recently pushed out
		default:
			is.True(!found) // nothing left of the oldest
		}
	}
	is.True(answers >= 19 && answers <= 21)
	is.True(tags >= 18 && tags <= 21)
	is.True(c.size <= c.max)
	is.True(c.tagSize <= c.max/8)

	c.put(key(85), 8, answer(10, `W/"85b"`)) // a tag's key answered again
	e, tag, v, _ := c.get(key(85))
	is.Equal(tag, nil)
	is.Equal(string(e.etag), `W/"85b"`)
	is.Equal(v, int64(8))
	is.Equal(len(c.entries), c.lru.Len()+c.tags.Len())
}
