package openapigen

import (
	"bytes"
	"encoding/json"
)

// indent writes src indented by two spaces, as the document always was.
func indent(dst *bytes.Buffer, src []byte) error {
	return json.Indent(dst, src, "", "  ")
}
