// Package types is a stub of github.com/aws/aws-sdk-go-v2/service/sqs/types
// for analyzer tests.
package types

type Message struct {
	Body          *string
	MessageId     *string
	ReceiptHandle *string
}

type ChangeMessageVisibilityBatchRequestEntry struct {
	Id                *string
	ReceiptHandle     *string
	VisibilityTimeout int32
}
