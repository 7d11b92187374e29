package testserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
)

// EtcdServer is a real single-member etcd on two loopback ports (client and
// peer). Its data directory survives Restart, Kill and Resume, so revisions
// and leases do too, as they would on a real machine.
type EtcdServer struct {
	*Server
}

// Etcd returns the etcd shared by the test binary (see Main), skipping or
// failing the test when etcd is not installed.
func Etcd(t testing.TB) *EtcdServer {
	t.Helper()
	spec := etcdSpec(t)
	return &EtcdServer{Shared(t, "etcd", func() Spec { return spec })}
}

// NewEtcd starts a private etcd for one test, for tests that restart, kill
// or pause it.
func NewEtcd(t testing.TB) *EtcdServer {
	t.Helper()
	return &EtcdServer{Start(t, etcdSpec(t))}
}

// Endpoint is the client address for clientv3.Config.Endpoints.
func (e *EtcdServer) Endpoint() string { return e.Addr() }

// DataDir is etcd's data directory.
func (e *EtcdServer) DataDir() string { return filepath.Join(e.Dir(), "data") }

func etcdSpec(t testing.TB) Spec {
	t.Helper()
	bin := Binary(t, "etcd", "etcd-server")
	return Spec{
		Name:  "etcd",
		Bin:   bin,
		Ports: 2,
		Args: func(s *Server) []string {
			client := "http://127.0.0.1:" + strconv.Itoa(s.Ports()[0])
			peer := "http://127.0.0.1:" + strconv.Itoa(s.Ports()[1])
			return []string{
				"--name", "default",
				"--data-dir", filepath.Join(s.Dir(), "data"),
				"--listen-client-urls", client,
				"--advertise-client-urls", client,
				"--listen-peer-urls", peer,
				"--initial-advertise-peer-urls", peer,
				"--initial-cluster", "default=" + peer,
				"--initial-cluster-state", "new",
				"--logger", "zap",
				"--log-outputs", "stderr",
			}
		},
		Ready: func(ctx context.Context, s *Server) error { return etcdHealth(ctx, s.Addr()) },
	}
}

// etcdHealth asks /health, which says "true" only once the member has a
// raft leader and serves linearizable requests: after a restart, the port
// accepting connections is not enough.
func etcdHealth(ctx context.Context, addr string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"true"`)) {
		return fmt.Errorf("etcd /health: %d %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	return nil
}
