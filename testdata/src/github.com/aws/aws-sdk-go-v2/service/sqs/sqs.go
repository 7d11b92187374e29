// Package sqs is a stub of github.com/aws/aws-sdk-go-v2/service/sqs for
// analyzer tests: real signatures, trivial bodies.
package sqs

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

type Options struct{ Region string }

type Client struct{ options Options }

func New(o Options) *Client { return &Client{options: o} }

type ReceiveMessageInput struct {
	QueueUrl            *string
	MaxNumberOfMessages int32
	VisibilityTimeout   int32
	WaitTimeSeconds     int32
}

type ReceiveMessageOutput struct {
	Messages []types.Message
}

type ChangeMessageVisibilityInput struct {
	QueueUrl          *string
	ReceiptHandle     *string
	VisibilityTimeout int32
}

type ChangeMessageVisibilityOutput struct{}

type ChangeMessageVisibilityBatchInput struct {
	QueueUrl *string
	Entries  []types.ChangeMessageVisibilityBatchRequestEntry
}

type ChangeMessageVisibilityBatchOutput struct{}

type DeleteMessageInput struct {
	QueueUrl      *string
	ReceiptHandle *string
}

type DeleteMessageOutput struct{}

func (c *Client) ReceiveMessage(ctx context.Context, params *ReceiveMessageInput, optFns ...func(*Options)) (*ReceiveMessageOutput, error) {
	return &ReceiveMessageOutput{}, nil
}

func (c *Client) ChangeMessageVisibility(ctx context.Context, params *ChangeMessageVisibilityInput, optFns ...func(*Options)) (*ChangeMessageVisibilityOutput, error) {
	return &ChangeMessageVisibilityOutput{}, nil
}

func (c *Client) ChangeMessageVisibilityBatch(ctx context.Context, params *ChangeMessageVisibilityBatchInput, optFns ...func(*Options)) (*ChangeMessageVisibilityBatchOutput, error) {
	return &ChangeMessageVisibilityBatchOutput{}, nil
}

func (c *Client) DeleteMessage(ctx context.Context, params *DeleteMessageInput, optFns ...func(*Options)) (*DeleteMessageOutput, error) {
	return &DeleteMessageOutput{}, nil
}
