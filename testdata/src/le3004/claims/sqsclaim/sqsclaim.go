// Package sqsclaim receives SQS messages with a 30 s visibility timeout and
// handles each one with no ChangeMessageVisibility: a handler slower than
// 30 s (or a message waiting behind slower ones in the batch) is delivered
// to another consumer while it is still being handled.
package sqsclaim

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

type Worker struct {
	client *sqs.Client
	url    *string
	handle func(ctx context.Context, m types.Message) error
}

func (w *Worker) poll(ctx context.Context) error {
	out, err := w.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: w.url, MaxNumberOfMessages: 10, VisibilityTimeout: 30}) // want `w.client.ReceiveMessage .*claims an item for a fixed 30s \(VisibilityTimeout 30 s\): the queue's redelivery.*the callback handle called with it`
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		if err := w.handle(ctx, m); err != nil {
			continue
		}
		w.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: w.url, ReceiptHandle: m.ReceiptHandle})
	}
	return nil
}

// pollDefault leaves the visibility timeout to the queue's configuration,
// which the code does not show: no report.
func (w *Worker) pollDefault(ctx context.Context) error {
	out, err := w.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: w.url, MaxNumberOfMessages: 10})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		_ = w.handle(ctx, m)
	}
	return nil
}

// drain only deletes what it receives: no work on the messages.
func (w *Worker) drain(ctx context.Context) error {
	out, err := w.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: w.url, VisibilityTimeout: 30})
	if err != nil {
		return err
	}
	for _, m := range out.Messages {
		w.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: w.url, ReceiptHandle: m.ReceiptHandle})
	}
	return nil
}
