package sandbox

import (
	"fmt"

	"github.com/clientstatus/clientstatus/files"
)

// FilesPrefix starts the file key of every demo file.
const FilesPrefix = "sandbox/"

// filePrefix is FilesPrefix, as the package's own code names it.
const filePrefix = FilesPrefix

// demoFile is a file of the demo data: its name, type and bytes.
type demoFile struct {
	key, name, contentType string
	content                []byte
}

// demoFiles are the files the demo data refers to, by key.
var demoFiles = func() map[string]demoFile {
	out := make(map[string]demoFile)
	add := func(name, contentType, content string) {
		out[filePrefix+name] = demoFile{key: filePrefix + name, name: name, contentType: contentType, content: []byte(content)}
	}
	add("homepage-mockup.txt", "text/plain", "Sandbox demo file: the homepage mockup.\n")
	add("brand-guidelines.txt", "text/plain", "Sandbox demo file: the brand guidelines.\n")
	add("wireframes.txt", "text/plain", "Sandbox demo file: the app's wireframes.\n")
	add("review-notes.txt", "text/plain", "Sandbox demo file: notes from the review.\n")
	for _, n := range []string{"SBX-0001", "SBX-0002"} {
		add("invoice-"+n+".pdf", "application/pdf", pdf("Sandbox invoice "+n))
	}
	return out
}()

// Files returns the source of the demo data's files (deliverables,
// attachments, invoice documents): serve it for keys that start with
// "sandbox/", beside the portal's own source. Every sandbox shares it.
func Files() files.Source {
	m := files.NewMemory()
	for _, f := range demoFiles {
		m.Put(f.key, f.content)
	}
	return m
}

// FilesBeside returns a source that serves the demo files (keys that
// start with FilesPrefix) from Files, and every other key from own, the
// portal's: give it to statusapi.WithFiles.
func FilesBeside(own files.Source) files.Source {
	return files.Route(FilesPrefix, Files(), own)
}

// pdf returns a one-page PDF that shows text.
func pdf(text string) string {
	stream := fmt.Sprintf("BT /F1 18 Tf 72 720 Td (%s) Tj ET", text)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	out := "%PDF-1.4\n"
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = len(out)
		out += fmt.Sprintf("%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := len(out)
	out += fmt.Sprintf("xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		out += fmt.Sprintf("%010d 00000 n \n", off)
	}
	out += fmt.Sprintf("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out
}
