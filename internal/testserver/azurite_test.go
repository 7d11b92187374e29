package testserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

func azuriteClient(t *testing.T, addr string) *azblob.Client {
	t.Helper()
	cred, err := azblob.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := azblob.NewClientWithSharedKeyCredential(AzuriteServiceURL(addr), cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAzuriteRestartKeepsBlobs: the elector store keeps its fencing token
// in blob metadata, so a clean restart on the same --location must keep
// containers, blobs and metadata, on the same port.
func TestAzuriteRestartKeepsBlobs(t *testing.T) {
	az := NewAzurite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := azuriteClient(t, az.Addr())
	if _, err := c.CreateContainer(ctx, "keep", nil); err != nil {
		t.Fatal(err)
	}
	v := "7"
	if _, err := c.UploadBuffer(ctx, "keep", "b", []byte("x"), &azblob.UploadBufferOptions{
		Metadata: map[string]*string{"token": &v},
	}); err != nil {
		t.Fatal(err)
	}
	port := az.Port()
	az.Restart(t)
	if az.Port() != port {
		t.Fatalf("port changed across restart: %d -> %d", port, az.Port())
	}
	props, err := c.ServiceClient().NewContainerClient("keep").NewBlobClient("b").GetProperties(ctx, nil)
	if err != nil {
		t.Fatalf("blob after restart: %v", err)
	}
	if got := props.Metadata["Token"]; got == nil || *got != "7" {
		// Azure canonicalises metadata keys' case in responses.
		if got = props.Metadata["token"]; got == nil || *got != "7" {
			t.Fatalf("metadata after restart = %v; want token=7", props.Metadata)
		}
	}

	if err := az.Kill(); err != nil {
		t.Fatal(err)
	}
	if az.Running() {
		t.Fatal("still running after Kill")
	}
	short, cancelShort := context.WithTimeout(ctx, 2*time.Second)
	defer cancelShort()
	if _, err := c.ServiceClient().NewContainerClient("keep").GetProperties(short, nil); err == nil {
		t.Fatal("a killed Azurite answered")
	}
	az.Resume(t)
	if _, err := c.ServiceClient().NewContainerClient("keep").GetProperties(ctx, nil); err != nil {
		t.Fatalf("container after kill and resume (it was saved by the clean restart before): %v", err)
	}
}

func TestAzuriteShared(t *testing.T) {
	first, second := Azurite(t), Azurite(t)
	if first.Server != second.Server {
		t.Fatal("Azurite under Main did not share one server")
	}
}

func missingAzurite(t *testing.T) *recordTB {
	t.Setenv(AzuriteDirEnv, t.TempDir())
	t.Setenv("PATH", t.TempDir())
	r := &recordTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		AzuriteBinary(r)
	}()
	<-done
	return r
}

func TestAzuriteMissingSkipsWithInstallHint(t *testing.T) {
	t.Setenv(RequireEnv, "")
	r := missingAzurite(t)
	if r.failed != "" || !strings.Contains(r.skipped, "azurite@"+AzuriteVersion) || !strings.Contains(r.skipped, "install-azurite.sh") {
		t.Fatalf("skipped %q, failed %q; want a skip naming npm's azurite@%s and the install script", r.skipped, r.failed, AzuriteVersion)
	}
}

func TestAzuriteMissingFailsWhenRequired(t *testing.T) {
	t.Setenv(RequireEnv, "1")
	r := missingAzurite(t)
	if r.skipped != "" || !strings.Contains(r.failed, "azurite@"+AzuriteVersion) || !strings.Contains(r.failed, RequireEnv) {
		t.Fatalf("skipped %q, failed %q; want a failure naming azurite and %s", r.skipped, r.failed, RequireEnv)
	}
}
