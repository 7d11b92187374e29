// Package blob writes chunks to the volume servers.
package blob

import (
	"bytes"
	"context"
	"net/http"
)

// PutEach sends every chunk to the volume server, one request each.
func PutEach(ctx context.Context, c *http.Client, url string, chunks [][]byte) error {
	for _, b := range chunks {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(b))
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
	}
	return nil
}
