package testserver

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Azurite's well-known development account. These are public constants of
// the emulator (documented by Microsoft for Azurite and the old storage
// emulator), not secrets: every Azurite accepts exactly this account and key.
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// AzuriteVersion is the npm version .ci/install-azurite.sh installs.
const AzuriteVersion = "3.37.0"

// AzuriteDirEnv names the directory Azurite was installed into with npm
// (it holds node_modules/.bin/azurite-blob); the default is
// $HOME/.cache/gatesift/azurite, where .ci/install-azurite.sh puts it.
const AzuriteDirEnv = "GATESIFT_AZURITE_DIR"

// AzuriteServer is a real Azurite blob service (the Azure Storage emulator,
// a node process) on loopback. Its data directory survives Stop, Restart,
// Kill and Resume.
//
// Azurite keeps blob metadata in a LokiJS database that it saves every
// 5 s and on a clean shutdown (SIGTERM, which Stop and Restart send). A
// kill -9 therefore loses up to the last 5 s of writes: unlike Azure
// Storage itself it is not durable against a crash, so tests that need
// data to survive restart it with Restart, not Kill.
type AzuriteServer struct {
	*Server
}

// Azurite returns the Azurite shared by the test binary (see Main),
// skipping or failing the test when it is not installed.
func Azurite(t testing.TB) *AzuriteServer {
	t.Helper()
	spec := azuriteSpec(t)
	return &AzuriteServer{Shared(t, "azurite", func() Spec { return spec })}
}

// NewAzurite starts a private Azurite for one test, for tests that restart,
// kill or pause it.
func NewAzurite(t testing.TB) *AzuriteServer {
	t.Helper()
	return &AzuriteServer{Start(t, azuriteSpec(t))}
}

// ServiceURL is the blob service URL of the development account on this
// server, in Azurite's path style: http://127.0.0.1:<port>/devstoreaccount1/.
func (a *AzuriteServer) ServiceURL() string { return AzuriteServiceURL(a.Addr()) }

// AzuriteServiceURL is the development account's blob service URL at addr
// ("host:port" of an Azurite or of a Proxy in front of one).
func AzuriteServiceURL(addr string) string {
	return "http://" + addr + "/" + AzuriteAccount + "/"
}

// DataDir is Azurite's --location.
func (a *AzuriteServer) DataDir() string { return filepath.Join(a.Dir(), "data") }

// AzuriteBinary finds azurite-blob in $GATESIFT_AZURITE_DIR, the default
// install directory or on PATH, skipping (or, when Required, failing) the
// test with the npm command that installs it.
func AzuriteBinary(t testing.TB) string {
	t.Helper()
	dir := azuriteDir()
	if p := findBinary("azurite-blob", []string{filepath.Join(dir, "node_modules", ".bin")}); p != "" {
		return p
	}
	msg := fmt.Sprintf("azurite-blob not found in %s/node_modules/.bin or on PATH: run .ci/install-azurite.sh "+
		"(npm install --prefix %s azurite@%s; needs node and npm)", dir, dir, AzuriteVersion)
	SkipMissing(t, "azurite", msg)
	return ""
}

func azuriteDir() string {
	if d := os.Getenv(AzuriteDirEnv); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "gatesift-azurite")
	}
	return filepath.Join(home, ".cache", "gatesift", "azurite")
}

func azuriteSpec(t testing.TB) Spec {
	t.Helper()
	bin := AzuriteBinary(t)
	return Spec{
		Name: "azurite",
		Bin:  bin,
		Args: func(s *Server) []string {
			return []string{
				"--blobHost", "127.0.0.1",
				"--blobPort", strconv.Itoa(s.Port()),
				"--location", filepath.Join(s.Dir(), "data"),
				// The SDK may speak a newer API version than the
				// emulator knows; the lease calls are old.
				"--skipApiVersionCheck",
				"--silent",
			}
		},
		Ready: func(ctx context.Context, s *Server) error { return azuriteReady(ctx, s.Addr()) },
		// Azurite saves its metadata database on SIGTERM (and SIGINT)
		// before exiting; that is what makes Restart keep the data.
		StopSignal: syscall.SIGTERM,
	}
}

// azuriteReady asks for the account's container list without credentials.
// Azurite opens its port only after loading its database, and answers this
// with 403 (authorization required): any HTTP answer from the blob service
// means it serves requests.
func azuriteReady(ctx context.Context, addr string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, AzuriteServiceURL(addr)+"?comp=list", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.Header.Get("x-ms-request-id") == "" {
		return fmt.Errorf("azurite: answer %d without x-ms-request-id: not the blob service", resp.StatusCode)
	}
	return nil
}
