package redis

import (
	"context"
	"time"
)

// StreamCmdable is the Redis Streams part of Cmdable.
type StreamCmdable interface {
	XAdd(ctx context.Context, a *XAddArgs) *StringCmd
	XAck(ctx context.Context, stream, group string, ids ...string) *IntCmd
	XReadGroup(ctx context.Context, a *XReadGroupArgs) *XStreamSliceCmd
	XPendingExt(ctx context.Context, a *XPendingExtArgs) *XPendingExtCmd
	XClaim(ctx context.Context, a *XClaimArgs) *XMessageSliceCmd
	XClaimJustID(ctx context.Context, a *XClaimArgs) *StringSliceCmd
	XAutoClaim(ctx context.Context, a *XAutoClaimArgs) *XAutoClaimCmd
}

type XAddArgs struct {
	Stream string
	ID     string
	Values interface{}
}

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

type XPendingExtArgs struct {
	Stream   string
	Group    string
	Idle     time.Duration
	Start    string
	End      string
	Count    int64
	Consumer string
}

type XPendingExt struct {
	ID         string
	Consumer   string
	Idle       time.Duration
	RetryCount int64
}

type XClaimArgs struct {
	Stream   string
	Group    string
	Consumer string
	MinIdle  time.Duration
	Messages []string
}

type XAutoClaimArgs struct {
	Stream   string
	Group    string
	MinIdle  time.Duration
	Start    string
	Count    int64
	Consumer string
}

type XStreamSliceCmd struct {
	baseCmd
	val []XStream
}

func (cmd *XStreamSliceCmd) Val() []XStream             { return cmd.val }
func (cmd *XStreamSliceCmd) Result() ([]XStream, error) { return cmd.val, cmd.err }

type XMessageSliceCmd struct {
	baseCmd
	val []XMessage
}

func (cmd *XMessageSliceCmd) Val() []XMessage             { return cmd.val }
func (cmd *XMessageSliceCmd) Result() ([]XMessage, error) { return cmd.val, cmd.err }

type XPendingExtCmd struct {
	baseCmd
	val []XPendingExt
}

func (cmd *XPendingExtCmd) Result() ([]XPendingExt, error) { return cmd.val, cmd.err }

type StringSliceCmd struct {
	baseCmd
	val []string
}

func (cmd *StringSliceCmd) Val() []string             { return cmd.val }
func (cmd *StringSliceCmd) Result() ([]string, error) { return cmd.val, cmd.err }

type XAutoClaimCmd struct {
	baseCmd
	start string
	val   []XMessage
}

func (cmd *XAutoClaimCmd) Result() ([]XMessage, string, error) { return cmd.val, cmd.start, cmd.err }

func (c cmdable) XAdd(ctx context.Context, a *XAddArgs) *StringCmd { return &StringCmd{} }
func (c cmdable) XAck(ctx context.Context, stream, group string, ids ...string) *IntCmd {
	return &IntCmd{}
}
func (c cmdable) XReadGroup(ctx context.Context, a *XReadGroupArgs) *XStreamSliceCmd {
	return &XStreamSliceCmd{}
}
func (c cmdable) XPendingExt(ctx context.Context, a *XPendingExtArgs) *XPendingExtCmd {
	return &XPendingExtCmd{}
}
func (c cmdable) XClaim(ctx context.Context, a *XClaimArgs) *XMessageSliceCmd {
	return &XMessageSliceCmd{}
}
func (c cmdable) XClaimJustID(ctx context.Context, a *XClaimArgs) *StringSliceCmd {
	return &StringSliceCmd{}
}
func (c cmdable) XAutoClaim(ctx context.Context, a *XAutoClaimArgs) *XAutoClaimCmd {
	return &XAutoClaimCmd{}
}
