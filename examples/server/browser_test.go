package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/clientstatus/clientstatus/internal/test/testenv"
)

// newBrowser starts headless Chromium (testenv.Chromium: skipped without
// one) with the reference page test's flags: nothing resolves but
// 127.0.0.1, so nothing leaves the machine whatever a page asks.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := testenv.Chromium(t)
	if testing.Short() {
		t.Skip("opens a browser; not with -short")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-domain-reliability", true), chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancel()
		cancelAlloc()
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return ctx
}

// tab is one tab of the browser, on a server's base URL.
type tab struct {
	t    *testing.T
	ctx  context.Context
	base string
	dir  string // where screenshots go

	mu      sync.Mutex
	console []string // what the pages reported of a blocked load or a script error
}

// newTab opens a tab; scripts off when js is false.
func newTab(t *testing.T, browser context.Context, base string, js bool) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	dir := os.Getenv("CLIENTSTATUS_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	b := &tab{t: t, ctx: ctx, base: base, dir: dir}
	// The first call opens the tab, which lives as long as its context:
	// never under a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if text := m.String(); m.IsException() || strings.Contains(text, "Content Security Policy") || strings.Contains(text, "Refused") {
				b.mu.Lock()
				b.console = append(b.console, text)
				b.mu.Unlock()
			}
		}
	}()
	// Focus as in a window in front, for the keyboard: a headless tab
	// beside others is not focused.
	b.run(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, page.BringToFront, cdp.Empty{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return chromedp.Void{}, err
	})
	if !js {
		b.run(func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return chromedp.Void{}, err
		})
	}
	return b
}

// checkConsole fails the test on any blocked load (a Content-Security-
// Policy violation) or script error the tab's pages reported.
func (b *tab) checkConsole() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		b.t.Errorf("browser console: %s", m)
	}
}

// run runs steps within 30 seconds, failing the test on error.
func (b *tab) run(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v\npage:\n%.3000s", err, b.shown())
	}
}

// open navigates to path on the server.
func (b *tab) open(path string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base + path))
}

// byRole finds elements by their role and accessible name, as a screen
// reader does, through the browser's accessibility tree (not the page's
// scripts): what the contract's names bind.
func byRole(role, name string) chromedp.QueryOption {
	return chromedp.ByFunc(func(ctx context.Context, t *chromedp.Target, n *chromedp.Node) ([]cdp.NodeID, error) {
		res, err := cdp.Call(ctx, t, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{
			NodeID: n.NodeID, Role: role, AccessibleName: name})
		if err != nil {
			return nil, err
		}
		var ids []cdp.BackendNodeID
		for _, ax := range res.Nodes {
			if !ax.Ignored && ax.BackendDOMNodeID != 0 {
				ids = append(ids, ax.BackendDOMNodeID)
			}
		}
		if len(ids) == 0 {
			return nil, nil
		}
		pushed, err := cdp.Call(ctx, t, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: ids})
		return pushed.NodeIDs, err
	})
}

// label is a selector's name in error messages.
func label(role, name string) string { return role + " " + fmt.Sprintf("%q", name) }

// click clicks the control of role and name.
func (b *tab) click(role, name string, opts ...chromedp.QueryOption) {
	b.t.Helper()
	b.run(chromedp.Click(label(role, name), append(opts, byRole(role, name))...))
}

// fill types text into the field of role and name.
func (b *tab) fill(role, name, text string) {
	b.t.Helper()
	b.run(chromedp.SendKeys(label(role, name), text, byRole(role, name)))
}

// has reports whether the page holds a control of role and name now.
func (b *tab) has(role, name string) bool {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Nodes(label(role, name), byRole(role, name), chromedp.AtLeast(0)))
	if err != nil {
		b.t.Fatalf("looking for %s: %v", label(role, name), err)
	}
	return len(n) > 0
}

// row returns the table row whose header cell is name.
func (b *tab) row(name string) *chromedp.Node {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Nodes(fmt.Sprintf(`//tr[th[normalize-space()=%q]]`, name)))
	if err != nil || len(n) == 0 {
		b.t.Fatalf("no row %q: %v\npage:\n%.3000s", name, err, b.shown())
	}
	return n[0]
}

// text returns the page's text as a reader gets it (its body's
// innerText is a script's; this is the DOM's, which needs none).
func (b *tab) text() string {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		return "(no page: " + err.Error() + ")"
	}
	return html
}

// shown returns the page's main part, for failure messages.
func (b *tab) shown() string {
	s := b.text()
	if i := strings.Index(s, "<main"); i >= 0 {
		s = s[i:]
	}
	return s
}

// sees waits until the page's HTML holds s.
func (b *tab) sees(s string) {
	b.t.Helper()
	if !testenv.Until(20*time.Second, func() bool { return strings.Contains(b.text(), s) }) {
		b.t.Fatalf("the page does not show %q:\n%.4000s", s, b.shown())
	}
}

// heading waits for the page's level-1 heading to be name.
func (b *tab) heading(name string) {
	b.t.Helper()
	b.run(chromedp.Query(label("heading", name), byRole("heading", name)))
}

// focused returns the role and name of the element that has the focus,
// from the accessibility tree (the document, which has it too, aside).
func (b *tab) focused() (string, string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		b.t.Fatalf("accessibility tree: %v", err)
	}
	for _, n := range res.Nodes {
		for _, p := range n.Properties {
			if p.Name == accessibility.PropertyNameFocused && p.Value != nil && string(p.Value.Value) == "true" &&
				n.Role != nil && axString(n.Role) != "RootWebArea" {
				return axString(n.Role), axString(n.Name)
			}
		}
	}
	return "", ""
}

func axString(v *accessibility.Value) string {
	if v == nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(v.Value, &s)
	return s
}

// tabTo presses Tab until the control of role and name has the focus.
func (b *tab) tabTo(role, name string) {
	b.t.Helper()
	// A Tab as a keyboard sends it: a raw key down without text (with
	// text, as chromedp.KeyEvent sends it, the browser types a tab
	// character and moves no focus).
	press := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: typ, Key: "Tab", Code: "Tab", WindowsVirtualKeyCode: 9, NativeVirtualKeyCode: 9}); err != nil {
				return chromedp.Void{}, err
			}
		}
		return chromedp.Void{}, nil
	}
	for range 80 {
		b.run(press)
		if r, n := b.focused(); r == role && n == name {
			return
		}
	}
	r, n := b.focused()
	b.t.Fatalf("Tab never reached %s (the focus is on %s)", label(role, name), label(r, n))
}

// key presses keys on the focused element.
func (b *tab) key(keys string) {
	b.t.Helper()
	b.run(chromedp.KeyEvent(keys))
}

// shot keeps a screenshot of the page as name.png in the artifacts
// directory ($CLIENTSTATUS_ARTIFACTS, else a temporary one).
func (b *tab) shot(name string) {
	b.t.Helper()
	dir := b.dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", file)
}

// axeScript returns axe-core's script: $AXE_CORE_JS, else the copy that
// .ci/run installs with npm ci --prefix .ci/axe (pinned by its lock
// file). Without one the test skips, unless services are required.
func axeScript(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AXE_CORE_JS")
	if path == "" {
		_, file, _, _ := runtime.Caller(0)
		path = filepath.Join(filepath.Dir(file), "..", "..", ".ci", "axe", "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		msg := "this test needs axe-core: npm ci --prefix .ci/axe (or AXE_CORE_JS=/path/to/axe.min.js): " + err.Error()
		if os.Getenv(testenv.RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return string(b)
}

// axeViolation is one finding of axe-core.
type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// axe runs axe-core on the page and fails the test on any serious or
// critical violation.
func (b *tab) axe(script, page string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](script)); err != nil {
		b.t.Fatalf("loading axe-core into %s: %v", page, err)
	}
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({ID: v.id, Impact: v.impact || "", Help: v.help, Nodes: v.nodes.map(n => n.target.join(" "))})))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe-core on %s: %v", page, err)
	}
	for _, v := range found {
		if v.Impact == "serious" || v.Impact == "critical" {
			b.t.Errorf("axe-core on %s: %s (%s): %s at %v", page, v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			b.t.Logf("axe-core on %s, %s: %s (%s)", page, v.Impact, v.ID, v.Help)
		}
	}
}

// axName returns the accessible name of a node.
func (b *tab) axName(n *chromedp.Node) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	res, err := chromedp.Call(ctx, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{BackendNodeID: n.BackendNodeID, FetchRelatives: new(false)})
	if err != nil || len(res.Nodes) == 0 {
		return ""
	}
	return axString(res.Nodes[0].Name)
}
