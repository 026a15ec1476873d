// Copied by .ci/generators into the package oapi-codegen generates: it compiles
// only if the generated types say what the document says.
package api

import "time"

var (
	project     Project
	deliverable Deliverable
	invoice     Invoice
	_           *time.Time = project.StartedAt     // nullable
	_           time.Time  = project.UpdatedAt     // not nullable
	_           *int64     = deliverable.SizeBytes // nullable int64
	_           *string    = invoice.ProjectId     // nullable
	_           int64      = invoice.AmountDue
	_           ErrorCode  = UNAVAILABLE
	_                      = ProjectStatusInProgress
	_                      = (*Client).ListProjectsHead // HEAD has operations
)
