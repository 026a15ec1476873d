package eventwire_test

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/eventwire"
	"github.com/clientstatus/clientstatus/store"
)

func TestEncode(t *testing.T) {
	is := is.New(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 123456000, time.FixedZone("x", 3600))
	b, err := eventwire.Encode(store.Event{ID: "evt_1", Type: "invoice.paid", Kind: store.KindInvoice, ItemID: "inv_1",
		ProjectID: "prj_1", PreviousStatus: "open", CreatedAt: at})
	is.NoErr(err)
	is.Equal(string(b), `{"id":"evt_1","type":"invoice.paid","createdAt":"2026-03-01T08:00:00Z","data":{"object":"invoice","id":"inv_1","projectId":"prj_1","previousStatus":"open"}}`)

	b, err = eventwire.Encode(store.Event{ID: "evt_2", Type: "message.created", Kind: store.KindMessage, ItemID: "msg1",
		ThreadID: "t1", CreatedAt: at})
	is.NoErr(err)
	is.Equal(string(b), `{"id":"evt_2","type":"message.created","createdAt":"2026-03-01T08:00:00Z","data":{"object":"message","id":"msg1","projectId":null,"threadId":"t1","previousStatus":null}}`) // every key of its kind present, null when it does not apply
}
