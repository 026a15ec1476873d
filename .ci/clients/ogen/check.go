// Copied by .ci/generators into the package ogen generates: it compiles
// only if the generated types say what the document says.
package api

import "time"

var (
	project     Project
	deliverable Deliverable
	invoice     Invoice
	_           NilDateTime = project.StartedAt     // nullable
	_           time.Time   = project.UpdatedAt     // not nullable
	_           NilInt64    = deliverable.SizeBytes // nullable int64
	_           NilString   = invoice.ProjectId     // nullable
	_           int64       = invoice.AmountDue
	_           ErrorCode   = ErrorCodeUNAVAILABLE
	_                       = ProjectStatusInProgress
	_                       = (*Client).ListProjectsHead // HEAD has operations
)
