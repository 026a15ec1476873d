package openapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/clientstatus/clientstatus/openapi"
)

func ExampleJSON() {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title string `json:"title"`
		} `json:"info"`
	}
	if err := json.Unmarshal(openapi.JSON(), &doc); err != nil {
		panic(err)
	}
	fmt.Println(doc.OpenAPI, doc.Info.Title)
	// Output: 3.1.0 Client Project Status API
}
