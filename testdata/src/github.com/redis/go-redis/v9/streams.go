package redis

import (
	"context"
	"time"
)

// Stream commands (a stub of the go-redis v9 API: the shapes only).

type XMessage struct {
	ID     string
	Values map[string]interface{}
}

type XStream struct {
	Stream   string
	Messages []XMessage
}

type XReadGroupArgs struct {
	Group    string
	Consumer string
	Streams  []string
	Count    int64
	Block    time.Duration
	NoAck    bool
}

type XClaimArgs struct {
	Stream   string
	Group    string
	Consumer string
	MinIdle  time.Duration
	Messages []string
}

type XMessageSliceCmd struct {
	baseCmd
	val []XMessage
}

func (cmd *XMessageSliceCmd) Val() []XMessage             { return cmd.val }
func (cmd *XMessageSliceCmd) Result() ([]XMessage, error) { return cmd.val, cmd.err }

type XStreamSliceCmd struct {
	baseCmd
	val []XStream
}

func (cmd *XStreamSliceCmd) Val() []XStream             { return cmd.val }
func (cmd *XStreamSliceCmd) Result() ([]XStream, error) { return cmd.val, cmd.err }

type StringSliceCmd struct {
	baseCmd
	val []string
}

func (cmd *StringSliceCmd) Val() []string             { return cmd.val }
func (cmd *StringSliceCmd) Result() ([]string, error) { return cmd.val, cmd.err }

func (c cmdable) XReadGroup(ctx context.Context, a *XReadGroupArgs) *XStreamSliceCmd {
	return &XStreamSliceCmd{}
}
func (c cmdable) XClaim(ctx context.Context, a *XClaimArgs) *XMessageSliceCmd {
	return &XMessageSliceCmd{}
}
func (c cmdable) XClaimJustID(ctx context.Context, a *XClaimArgs) *StringSliceCmd {
	return &StringSliceCmd{}
}
func (c cmdable) XAck(ctx context.Context, stream, group string, ids ...string) *IntCmd {
	return &IntCmd{}
}
