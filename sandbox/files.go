package sandbox

import (
	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/internal/demopdf"
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
		add("invoice-"+n+".pdf", "application/pdf", string(demopdf.Page("Sandbox invoice "+n)))
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
