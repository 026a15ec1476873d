package webhook

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/matryer/is"
)

// TestControl calls the dialer's Control with addresses, as the dialer does
// after DNS; nothing is dialed.
func TestControl(t *testing.T) {
	refused := []string{
		"127.0.0.1:443", "127.9.9.9:443", "[::1]:443", "0.0.0.0:443", "[::]:443",
		"10.1.2.3:443", "172.16.0.1:443", "172.31.255.255:443", "192.168.1.1:443",
		"169.254.169.254:80", "[fd00:ec2::254]:80", "[fe80::1]:443", "100.64.0.1:443",
		"224.0.0.1:443", "255.255.255.255:443", "[ff02::1]:443", "192.0.2.1:443",
		"198.51.100.7:443", "203.0.113.9:443", "198.18.0.1:443", "[2001:db8::1]:443",
		"[::ffff:127.0.0.1]:443", "[::ffff:10.0.0.1]:443", "[64:ff9b::a00:1]:443",
		"[2002:a00:1::]:443", "[fc00::1]:443", "[2001::1]:443", "240.0.0.1:443",
		"not-an-address:443",
	}
	for _, a := range refused {
		err := control("tcp", a, nil)
		if !errors.Is(err, ErrRefusedAddress) {
			t.Errorf("control(%q) = %v, want ErrRefusedAddress", a, err)
		}
	}
	allowed := []string{"93.184.215.14:443", "1.1.1.1:443", "[2606:4700:4700::1111]:443", "[::ffff:8.8.8.8]:443", "172.32.0.1:443", "100.128.0.1:443"}
	for _, a := range allowed {
		if err := control("tcp", a, nil); err != nil {
			t.Errorf("control(%q) = %v, want nil", a, err)
		}
	}
}

func TestDialerAllowLocal(t *testing.T) {
	is := is.New(t)
	is.True(dialer(false).Control != nil) // the check is on by default
	is.True(dialer(true).Control == nil)  // and off only when asked
	is.True(!Public(netip.Addr{}))        // the zero address is not public
}
