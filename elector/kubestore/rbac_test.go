package kubestore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/elector/storetest"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"
)

// documentedRole is the Role docs/kubernetes.md tells users to grant, verb for verb:
// get, create, update and watch on Leases; no list, patch or delete.
func documentedRole(namespace, name string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"coordination.k8s.io"},
			Resources: []string{"leases"},
			Verbs:     []string{"get", "create", "update", "watch"},
		}},
	}
}

// TestDocumentedRoleSuffices runs the store as an unprivileged user bound
// to exactly the documented Role: every operation works, and the Role does
// not let the user delete a Lease (which is what protects the tokens).
func TestDocumentedRoleSuffices(t *testing.T) {
	k := testserver.KubeAPIServerShared(t)
	ctx := testCtx(t, 60*time.Second)
	rc, err := rbacclient.NewForConfig(restConfig(k.Host(), k.CAData(), k.AdminToken()))
	if err != nil {
		t.Fatal(err)
	}
	roleName := storetest.LeaseName(t)
	if _, err := rc.Roles("default").Create(ctx, documentedRole("default", roleName), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: roleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roleName},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: testserver.UserName}},
	}
	if _, err := rc.RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = rc.RoleBindings("default").Delete(ctx, roleName, metav1.DeleteOptions{})
		_ = rc.Roles("default").Delete(ctx, roleName, metav1.DeleteOptions{})
	})

	user := newClient(t, k, k.UserToken())
	s := New(user, "default")
	name := storetest.LeaseName(t)
	// RBAC learns of the binding through an informer: wait until it is in.
	var term elector.Term
	deadline := time.Now().Add(15 * time.Second)
	for {
		term, err = s.Acquire(ctx, name, "a", 30*time.Second)
		if err == nil {
			break
		}
		if !apierrors.IsForbidden(errors.Unwrap(err)) && !apierrors.IsForbidden(err) || time.Now().After(deadline) {
			t.Fatalf("Acquire as %s with the documented Role: %v", testserver.UserName, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := s.Watch(wctx, name)
	if err != nil {
		t.Fatalf("Watch with the documented Role: %v", err)
	}
	if err := s.Renew(ctx, term, 30*time.Second); err != nil {
		t.Fatalf("Renew with the documented Role: %v", err)
	}
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no watch wakeup after Renew")
	}
	if rec, err := s.Read(ctx, name); err != nil || rec.Term != term || !rec.Held {
		t.Fatalf("Read with the documented Role: %+v, %v", rec, err)
	}
	if err := s.Release(ctx, term); err != nil {
		t.Fatalf("Release with the documented Role: %v", err)
	}
	for _, obj := range []string{name, name + FenceSuffix} {
		err := user.Leases("default").Delete(ctx, obj, metav1.DeleteOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("delete %s as %s: %v; want Forbidden", obj, testserver.UserName, err)
		}
	}
	// A user without the Role is refused, so the test above did depend on it.
	if _, err := New(user, "kube-system").Acquire(ctx, name, "a", time.Second); !apierrors.IsForbidden(err) {
		t.Fatalf("Acquire in a namespace without the Role: %v; want Forbidden", err)
	}
}
