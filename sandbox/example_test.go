package sandbox_test

import (
	"context"
	"fmt"
	"io"

	"github.com/clientstatus/clientstatus/files"
	"github.com/clientstatus/clientstatus/sandbox"
)

// Serve the sandboxes' demo files beside the portal's own, from one
// source for statusapi.WithFiles.
func ExampleFilesBeside() {
	own := files.NewMemory() // the portal's: files.FromFS(os.DirFS("/srv/deliverables")), say
	own.Put("acme/brief.pdf", []byte("the portal's file"))
	src := sandbox.FilesBeside(own) // statusapi.WithFiles(src)
	for _, key := range []string{"sandbox/homepage-mockup.txt", "acme/brief.pdf"} {
		f, err := src.Open(context.Background(), key)
		if err != nil {
			fmt.Println(err)
			continue
		}
		b, _ := io.ReadAll(f)
		f.Close()
		fmt.Printf("%s: %s\n", key, b)
	}
	// Output:
	// sandbox/homepage-mockup.txt: Sandbox demo file: the homepage mockup.
	//
	// acme/brief.pdf: the portal's file
}
