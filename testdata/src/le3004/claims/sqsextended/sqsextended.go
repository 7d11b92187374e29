// Package sqsextended is sqsclaim's poll with an extender: a goroutine
// moves each message's visibility on while it is handled.
package sqsextended

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

type Worker struct {
	client *sqs.Client
	url    *string
	handle func(ctx context.Context, m types.Message) error
}

func (w *Worker) poll(ctx context.Context) error {
	out, err := w.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: w.url, MaxNumberOfMessages: 10, VisibilityTimeout: 30})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		stop := make(chan struct{})
		go w.extend(ctx, m.ReceiptHandle, stop)
		err := w.handle(ctx, m)
		close(stop)
		if err == nil {
			w.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: w.url, ReceiptHandle: m.ReceiptHandle})
		}
	}
	return nil
}

func (w *Worker) extend(ctx context.Context, receipt *string, stop <-chan struct{}) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			w.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: w.url, ReceiptHandle: receipt, VisibilityTimeout: 30})
		}
	}
}
