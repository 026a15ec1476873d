package main

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestZipfShare(t *testing.T) {
	is := is.New(t)
	z := newZipf(prodOrgs, zipfS, zipfV)
	top := z.cdf[prodOrgs/100-1] // the share of the top 1 %
	is.True(top > 0.31 && top < 0.36)
	is.Equal(z.cdf[len(z.cdf)-1], 1.0)
}

func TestProdSizes(t *testing.T) {
	is := is.New(t)
	sizes := prodSizes()
	is.Equal(len(sizes), prodOrgs)
	total, large := 0, 0
	for _, n := range sizes {
		total += n
		switch {
		case n >= 2000 && n <= 10_000:
			large++
		case n < 5 || n > 50:
			t.Fatalf("size %d is neither small (5-50) nor large (2,000-10,000)", n)
		}
	}
	is.Equal(large, prodLarge)
	is.True(total > 290_000 && total < 310_000) // about 300,000
}

func TestProdQuery(t *testing.T) {
	is := is.New(t)
	r := rand.New(rand.NewPCG(1, 2))
	var status, page1, limit20 int
	const n = 10_000
	for range n {
		q := prodQuery(r)
		if strings.Contains(q, "status=") {
			status++
		}
		if !strings.Contains(q, "page=") {
			page1++
		}
		if strings.Contains(q, "limit=20") {
			limit20++
		}
	}
	is.True(status > n*45/100 && status < n*55/100)   // a status filter on half
	is.True(page1 > n*65/100 && page1 < n*75/100)     // page 1 70 %
	is.True(limit20 > n*45/100 && limit20 < n*55/100) // limit 20 or 100
}
