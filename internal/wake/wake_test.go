package wake_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/clientstatus/clientstatus/internal/wake"
)

func TestSet(t *testing.T) {
	is := is.New(t)
	var s wake.Set
	ctx, cancel := context.WithCancel(context.Background())
	a := s.Watch(ctx, "org_a")
	b := s.Watch(context.Background(), "org_b")
	is.Equal(s.Watched("org_a"), 1)
	s.Wake("org_a")
	s.Wake("org_a") // a slow reader gets one value for many
	is.Equal(len(a), 1)
	is.Equal(len(b), 0) // another organization's watcher sleeps
	s.WakeAll()
	is.Equal(len(b), 1)
	<-a
	cancel()
	_, open := <-a
	is.True(!open) // closed once its context is done
	is.Equal(s.Watched("org_a"), 0)
}
