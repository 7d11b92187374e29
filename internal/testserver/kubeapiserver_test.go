package testserver

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func missingKube(t *testing.T) *recordTB {
	t.Setenv(KubeAPIServerEnv, filepath.Join(t.TempDir(), "no-kube-apiserver"))
	r := &recordTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		kubeBinary(r)
	}()
	<-done
	return r
}

func TestKubeAPIServerMissingSkips(t *testing.T) {
	t.Setenv(RequireEnv, "")
	r := missingKube(t)
	if r.failed != "" || !strings.Contains(r.skipped, KubeBuildScript) {
		t.Fatalf("skipped %q, failed %q; want a skip naming %s", r.skipped, r.failed, KubeBuildScript)
	}
}

func TestKubeAPIServerMissingFailsWhenRequired(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	r := missingKube(t)
	if r.skipped != "" || !strings.Contains(r.failed, KubeBuildScript) || !strings.Contains(r.failed, RequireEnv) {
		t.Fatalf("skipped %q, failed %q; want a failure naming %s and %s", r.skipped, r.failed, KubeBuildScript, RequireEnv)
	}
}

// kubeDo sends one request with token and returns the status and body.
func kubeDo(t *testing.T, k *KubeAPIServer, token, method, path string, body any) (int, []byte) {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(k.CAData()) {
		t.Fatal("CAData holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer client.CloseIdleConnections()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, k.Host()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func lease(name, holder string) map[string]any {
	return map[string]any{
		"apiVersion": "coordination.k8s.io/v1",
		"kind":       "Lease",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"holderIdentity": holder, "leaseDurationSeconds": 15},
	}
}

// TestKubeAPIServerLeasesAndRBAC checks what the kubestore tests rely on:
// the admin token may create and read Leases, the user token may do nothing
// until RBAC grants it, and the grant is enforced per verb.
func TestKubeAPIServerLeasesAndRBAC(t *testing.T) {
	k := KubeAPIServerShared(t)
	const leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	name := strings.ReplaceAll(UniqueName("probe"), "_", "-")

	if code, b := kubeDo(t, k, k.AdminToken(), "POST", leases, lease(name, "a")); code != http.StatusCreated {
		t.Fatalf("admin create: %d %s", code, b)
	}
	if code, b := kubeDo(t, k, k.UserToken(), "GET", leases+"/"+name, nil); code != http.StatusForbidden {
		t.Fatalf("user get without a Role: %d %s; want 403", code, b)
	}
	if code, b := kubeDo(t, k, "wrong"+k.AdminToken(), "GET", leases+"/"+name, nil); code != http.StatusUnauthorized {
		t.Fatalf("unknown token: %d %s; want 401", code, b)
	}

	role := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"name": name},
		"rules": []any{map[string]any{
			"apiGroups": []string{"coordination.k8s.io"}, "resources": []string{"leases"},
			"verbs": []string{"get"},
		}},
	}
	binding := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": name},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": UserName}},
	}
	rbac := "/apis/rbac.authorization.k8s.io/v1/namespaces/default/"
	if code, b := kubeDo(t, k, k.AdminToken(), "POST", rbac+"roles", role); code != http.StatusCreated {
		t.Fatalf("create Role: %d %s", code, b)
	}
	if code, b := kubeDo(t, k, k.AdminToken(), "POST", rbac+"rolebindings", binding); code != http.StatusCreated {
		t.Fatalf("create RoleBinding: %d %s", code, b)
	}
	// The authorizer learns of the binding through its informer.
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, b := kubeDo(t, k, k.UserToken(), "GET", leases+"/"+name, nil)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("user get with a Role: %d %s", code, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, b := kubeDo(t, k, k.UserToken(), "DELETE", leases+"/"+name, nil); code != http.StatusForbidden {
		t.Fatalf("user delete with a get-only Role: %d %s; want 403", code, b)
	}
}

// TestKubeAPIServerRestartKeepsLeases restarts a private API server: its
// objects live in etcd, so a Lease and its resourceVersion survive.
func TestKubeAPIServerRestartKeepsLeases(t *testing.T) {
	k := NewKubeAPIServer(t, Etcd(t))
	const path = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	code, b := kubeDo(t, k, k.AdminToken(), "POST", path, lease("restart", "a"))
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, b)
	}
	rv := func(b []byte) string {
		var obj struct {
			Metadata struct{ ResourceVersion string } `json:"metadata"`
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		return obj.Metadata.ResourceVersion
	}
	before := rv(b)
	start := time.Now()
	k.Restart(t)
	t.Logf("kube-apiserver restarted in %v", time.Since(start).Round(time.Millisecond))
	code, b = kubeDo(t, k, k.AdminToken(), "GET", path+"/restart", nil)
	if code != http.StatusOK {
		t.Fatalf("get after restart: %d %s", code, b)
	}
	if after := rv(b); after != before {
		t.Fatalf("resourceVersion %s after restart; want %s", after, before)
	}
}
