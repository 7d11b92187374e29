package kubestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesift/gatesift-vet/elector"
	"github.com/gatesift/gatesift-vet/internal/testserver"
	"github.com/gatesift/gatesift-vet/internal/testserver/faulttest"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordclient "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// faultEnv runs the shared fault scenarios on a kube-apiserver (on etcd,
// which keeps the Leases across an API server crash). The resource is a
// Lease object, written by fencedWrite, that logs the token of every
// write it accepted.
var faultEnv = faulttest.Env{
	Server: func(t *testing.T, private bool) faulttest.Server {
		if private {
			return testserver.NewKubeAPIServer(t, testserver.Etcd(t))
		}
		return testserver.KubeAPIServerShared(t)
	},
	// A client needs the CA and a token besides the address; the child
	// process gets them the same way.
	Target: func(srv faulttest.Server, addr string) string {
		k := srv.(*testserver.KubeAPIServer)
		b, err := json.Marshal(faultTarget{Host: "https://" + addr, CA: string(k.CAData()), Token: k.AdminToken()})
		if err != nil {
			panic(err) // three strings always marshal
		}
		return string(b)
	},
	Open: func(t *testing.T, target string) elector.Store {
		var ft faultTarget
		if err := json.Unmarshal([]byte(target), &ft); err != nil {
			t.Fatalf("fault target %q: %v", target, err)
		}
		c, err := coordclient.NewForConfig(restConfig(ft.Host, []byte(ft.CA), ft.Token))
		if err != nil {
			t.Fatal(err)
		}
		return New(c, "default")
	},
	Write: func(ctx context.Context, s elector.Store, term elector.Term) error {
		err := fencedWrite(ctx, s.(*Store).leases, term.Name+"-resource", term.Token)
		if errors.Is(err, elector.ErrStaleToken) {
			return fmt.Errorf("%w: %w", elector.ErrLost, err)
		}
		return err
	},
	Written: func(ctx context.Context, s elector.Store, name string) ([]uint64, error) {
		l, err := s.(*Store).leases.Get(ctx, name+"-resource", metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		var tokens []uint64
		for _, f := range strings.Fields(l.Annotations[resourceLog]) {
			tok, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return nil, err
			}
			tokens = append(tokens, tok)
		}
		return tokens, nil
	},
	Skip: map[string]string{
		"HalfOpenStall": "client-go multiplexes every request over one HTTP/2 connection: when it freezes (new connections " +
			"would work) no renew can route around it, and the leader loses its term (seen: deadline 1.54 s into a " +
			"1.7 s freeze); HTTP/2 health checks within the safe window are the remedy (see the package doc)",
	},
}

// faultTarget is what Open needs to reach a kube-apiserver.
type faultTarget struct {
	Host, CA, Token string
}

func TestFaults(t *testing.T) { faulttest.Run(t, faultEnv) }

func TestFaultChild(t *testing.T) { faulttest.Child(t, faultEnv) }

// Annotations of the fenced resource the fault scenarios write: a Lease
// object standing in for any Kubernetes object a leader updates.
const (
	resourceToken = "test.gatesift.dev/token"  // the newest token admitted
	resourceLog   = "test.gatesift.dev/writes" // every admitted token, in order
)

// fencedWrite is how a leader fences a write to a Kubernetes object by its
// token: read the object, refuse when it already carries a newer token
// (elector.CheckToken), else write the token guarded by the
// resourceVersion read, so a newer leader's write in between makes this one
// conflict and check again.
func fencedWrite(ctx context.Context, leases coordclient.LeaseInterface, name string, token uint64) error {
	for {
		cur, err := leases.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			cur = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name}}
		} else if err != nil {
			return err
		}
		var latest uint64
		if v := cur.Annotations[resourceToken]; v != "" {
			if latest, err = strconv.ParseUint(v, 10, 64); err != nil {
				return err
			}
		}
		if err := elector.CheckToken(latest, token); err != nil {
			return err
		}
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		tok := strconv.FormatUint(token, 10)
		cur.Annotations[resourceToken] = tok
		cur.Annotations[resourceLog] = strings.TrimSpace(cur.Annotations[resourceLog] + " " + tok)
		if cur.ResourceVersion == "" {
			_, err = leases.Create(ctx, cur, metav1.CreateOptions{})
		} else {
			_, err = leases.Update(ctx, cur, metav1.UpdateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) {
			continue
		}
		return err
	}
}
