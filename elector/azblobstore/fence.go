package azblobstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/gatesift/gatesift-vet/elector"
)

// metaFence is the resource blob's metadata key holding the largest token
// that wrote it.
const metaFence = "fence"

// AppendFenced appends data to the block blob named blobName in the
// store's container, fenced by term t's token: it refuses, with an error
// wrapping elector.ErrLost and changing nothing, when t is not the lease's
// live term, or when a later term already wrote the blob (its metadata
// keeps the largest token that wrote it). The append is a read and an
// If-Match upload of the whole blob, so it suits small resources such as
// the fault tests' write logs.
//
// The term check and the write are two requests: a term that ends between
// them can still land one write, but never after a later term's write (the
// token fence on the blob, checked under If-Match, stops that). That is
// the guarantee a fencing token gives; the check only narrows the window.
func (s *Store) AppendFenced(ctx context.Context, t elector.Term, blobName string, data []byte) error {
	fail := func(err error) error {
		return fmt.Errorf("azblobstore: fenced append to %q with token %d: %w", blobName, t.Token, err)
	}
	rec, err := s.Read(ctx, t.Name)
	if err != nil {
		return fail(err)
	}
	if !rec.Held || rec.Term != t {
		return fail(elector.ErrLost)
	}
	bc := s.c.NewBlockBlobClient(blobName)
	for attempt := 0; ; attempt++ {
		body, etag, fence, found, err := s.download(ctx, blobName)
		if err != nil {
			return fail(err)
		}
		if fence > t.Token {
			return fail(fmt.Errorf("%w: written by token %d already", elector.ErrLost, fence))
		}
		cond := &blob.ModifiedAccessConditions{IfMatch: &etag}
		if !found {
			anyETag := azcore.ETagAny
			cond = &blob.ModifiedAccessConditions{IfNoneMatch: &anyETag}
		}
		v := strconv.FormatUint(t.Token, 10)
		_, err = bc.Upload(ctx, streaming.NopCloser(bytes.NewReader(append(body, data...))), &blockblob.UploadOptions{
			Metadata:         map[string]*string{metaFence: &v},
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: cond},
		})
		if err == nil {
			return nil
		}
		// Another write came first; judge the fence again on what it left.
		if !hasStatus(err, http.StatusPreconditionFailed, http.StatusConflict) || attempt >= 4 {
			return fail(err)
		}
	}
}

// ReadFenced returns the content of a blob written by AppendFenced, nil
// when it does not exist.
func (s *Store) ReadFenced(ctx context.Context, blobName string) ([]byte, error) {
	body, _, _, _, err := s.download(ctx, blobName)
	if err != nil {
		return nil, fmt.Errorf("azblobstore: read %q: %w", blobName, err)
	}
	return body, nil
}

func (s *Store) download(ctx context.Context, blobName string) (body []byte, etag azcore.ETag, fence uint64, found bool, err error) {
	r, err := s.c.NewBlobClient(blobName).DownloadStream(ctx, nil)
	if err != nil {
		if hasStatus(err, http.StatusNotFound) {
			return nil, "", 0, false, nil
		}
		return nil, "", 0, false, err
	}
	defer r.Body.Close()
	if body, err = io.ReadAll(r.Body); err != nil {
		return nil, "", 0, false, err
	}
	if r.ETag == nil {
		return nil, "", 0, false, fmt.Errorf("download of %q without ETag", blobName)
	}
	if v := metaValue(r.Metadata, metaFence); v != "" {
		if fence, err = strconv.ParseUint(v, 10, 64); err != nil {
			return nil, "", 0, false, fmt.Errorf("malformed fence %q", v)
		}
	}
	return body, *r.ETag, fence, true, nil
}
