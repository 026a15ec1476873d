package openapigen

// fileResponses are a signed link's and the signed file routes' responses.
var fileResponses = O(
	"DownloadLinkResponse", bodyResponse("A signed link to the deliverable's file, valid for 15 minutes. Never cached (`Cache-Control: no-store`): the link is a credential.",
		orgErrorHeaders, "DownloadLinkEnvelope", O("data", O(
			"url", "https://portal.example.com/api/v1/deliverables/dlv_acme_1_2/file?expires=1772356500&org=org_acme&signature=r5btJXmjjeFW_azDmHB9O8W4Wwaz-79mgDUxLT9cat0",
			"expiresAt", "2026-03-01T09:15:00Z",
		))),
	"LinkRejected", errorNamed("LinkRejected").response(),
	"File", responseOf("The deliverable's file, with its own media type (`application/octet-stream` when it has none).",
		fileHeaders, O("*/*", O())),
	"FilePart", responseOf("The requested ranges of the file (`Range` request, RFC 9110). One range is served with the file's own media type and a `Content-Range`; several ranges as one `multipart/byteranges` body, whose parts each carry their own `Content-Type` and `Content-Range`, with no `Content-Range` on the response itself. (Ranges that together cover more than the file are answered 200 with the whole file.)",
		hs(fileHeaders, []string{"Content-Range"}), O("*/*", O())),
	"FileNotModified", responseOf("The file has not changed since the validator sent in `If-None-Match` or `If-Modified-Since`. No body.",
		fileHeaders, nil),
	"FilePrecondition", responseOf("An `If-Match` or `If-Unmodified-Since` precondition failed. No body.",
		hs(plainHeaders, []string{"Content-Disposition"}), nil),
	"FileRange", refHeader(responseOf("The `Range` cannot be served from the file. Plain text, from Go's `net/http`.",
		hs(plainHeaders, []string{"Content-Disposition", "Content-Range"}), O("text/plain", O("schema", O("type", "string")))),
		"Content-Range", "Content-Range-Unsatisfied"),
)
