package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"syscall"
)

// ErrRefusedAddress is returned (wrapped) when a delivery would connect to
// an address that is not public: loopback, private, link-local, carrier-
// grade NAT, cloud metadata, multicast, documentation or any other special
// range. It is checked on the address actually dialed, after DNS, so a
// name that resolves to such an address is refused too.
var ErrRefusedAddress = errors.New("webhook: refused to connect to a non-public address")

// refused are the ranges never dialed (IANA's special-purpose registries,
// and the neighbours that reach them): an address in none of them, and
// for IPv6 in 2000::/3, is public.
var refused = prefixes(
	// IPv4
	"0.0.0.0/8",       // "this network", unspecified
	"10.0.0.0/8",      // private
	"100.64.0.0/10",   // carrier-grade NAT
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, cloud metadata (169.254.169.254)
	"172.16.0.0/12",   // private
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // documentation (TEST-NET-1)
	"192.31.196.0/24", // AS112
	"192.52.193.0/24", // AMT
	"192.88.99.0/24",  // 6to4 relay anycast
	"192.168.0.0/16",  // private
	"192.175.48.0/24", // AS112
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation (TEST-NET-2)
	"203.0.113.0/24",  // documentation (TEST-NET-3)
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, broadcast
	// IPv6 (besides everything outside 2000::/3: loopback, unspecified,
	// IPv4-mapped, unique local fc00::/7 with metadata fd00:ec2::254,
	// link-local, multicast)
	"2001::/23",     // IETF protocol assignments, Teredo
	"2001:db8::/32", // documentation
	"2002::/16",     // 6to4: reaches any IPv4 address
	"3fff::/20",     // documentation
)

// global is IPv6's global unicast range.
var global = netip.MustParsePrefix("2000::/3")

// nat64 is the well-known NAT64 prefix, which reaches any IPv4 address,
// and the local-use one: outside 2000::/3, so already refused; listed for
// the tests' sake.
func prefixes(ps ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ps))
	for i, p := range ps {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// Public reports whether a may be dialed by a delivery: a unicast address
// in no special range. An IPv4-mapped IPv6 address is judged as the IPv4
// address it maps.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() {
		return false
	}
	if a.Is6() && !global.Contains(a) {
		return false
	}
	return !slices.ContainsFunc(refused, func(p netip.Prefix) bool { return p.Contains(a) })
}

// control is a net.Dialer.Control that refuses to connect to an address
// that is not Public: it runs on every address the dialer tries, after
// DNS, so no answer of a resolver gets past it.
func control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q on %s", ErrRefusedAddress, address, network)
	}
	if !Public(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, ap.Addr())
	}
	return nil
}

// dialer returns the dialer of deliveries: refusing non-public addresses
// unless allowLocal.
func dialer(allowLocal bool) *net.Dialer {
	d := &net.Dialer{Timeout: DeliveryTimeout}
	if !allowLocal {
		d.Control = control
	}
	return d
}
