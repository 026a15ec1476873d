package demopdf_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/demopdf"
)

// A reader finds each object where the cross-reference table says it
// is, and the text with its parentheses escaped.
func TestPageIsWellFormed(t *testing.T) {
	is := is.New(t)
	doc := string(demopdf.Page("Invoice (draft)", `C:\path`))
	is.True(strings.HasPrefix(doc, "%PDF-1.4\n"))
	is.True(strings.HasSuffix(doc, "%%EOF\n"))
	is.True(strings.Contains(doc, `(Invoice \(draft\)) Tj`))
	is.True(strings.Contains(doc, `(C:\\path) Tj`))

	start := regexp.MustCompile(`startxref\n(\d+)\n`).FindStringSubmatch(doc)
	is.True(start != nil)
	xref, _ := strconv.Atoi(start[1])
	is.True(strings.HasPrefix(doc[xref:], "xref\n0 6\n"))
	offsets := regexp.MustCompile(`(\d{10}) 00000 n `).FindAllStringSubmatch(doc[xref:], -1)
	is.Equal(len(offsets), 5)
	for i, m := range offsets {
		off, _ := strconv.Atoi(m[1])
		is.True(strings.HasPrefix(doc[off:], fmt.Sprintf("%d 0 obj\n", i+1)))
	}
	length := regexp.MustCompile(`<< /Length (\d+) >>\nstream\n`).FindStringSubmatchIndex(doc)
	n, _ := strconv.Atoi(doc[length[2]:length[3]])
	is.True(strings.HasPrefix(doc[length[1]+n:], "\nendstream"))
}
