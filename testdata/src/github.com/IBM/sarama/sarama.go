// Package sarama is a stand-in for github.com/IBM/sarama's consumer-group
// API: only the types and method sets the LE4001 session fixtures use.
package sarama

import "context"

// ConsumerMessage is one record of a claimed partition.
type ConsumerMessage struct {
	Topic     string
	Partition int32
	Offset    int64
	Value     []byte
}

// ConsumerGroupSession is one generation of the group's membership.
type ConsumerGroupSession interface {
	Claims() map[string][]int32
	MemberID() string
	GenerationID() int32
	MarkOffset(topic string, partition int32, offset int64, metadata string)
	Commit()
	ResetOffset(topic string, partition int32, offset int64, metadata string)
	MarkMessage(msg *ConsumerMessage, metadata string)
	Context() context.Context
}

// ConsumerGroupClaim is one partition claimed for a session.
type ConsumerGroupClaim interface {
	Topic() string
	Partition() int32
	InitialOffset() int64
	HighWaterMarkOffset() int64
	Messages() <-chan *ConsumerMessage
}

// ConsumerGroupHandler is what a project implements.
type ConsumerGroupHandler interface {
	Setup(ConsumerGroupSession) error
	Cleanup(ConsumerGroupSession) error
	ConsumeClaim(ConsumerGroupSession, ConsumerGroupClaim) error
}

// ConsumerGroup joins a group and runs a handler per session.
type ConsumerGroup interface {
	Consume(ctx context.Context, topics []string, handler ConsumerGroupHandler) error
	Close() error
}
