// Package files is where the bytes of deliverables come from. The status
// API serves a deliverable's file through a signed link; it finds the bytes
// by the deliverable's file key in a Source.
//
// Two Sources come with the package: Memory, for tests, demos and files
// loaded at start-up, and FromFS, which serves any fs.FS (os.DirFS for a
// directory on disk, an embed.FS, or an object store that offers one).
package files
