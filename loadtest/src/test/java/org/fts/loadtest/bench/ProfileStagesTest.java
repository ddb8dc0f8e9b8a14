package org.fts.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Samples land in the stage of the request path their thread and frames say. */
class ProfileStagesTest {
    @Test
    void aSampleIsAttributedByItsThreadThenItsFrames() {
        assertEquals("request thread: waiting for the execution", ProfileStages.stage(
                "[RequestProcessor-3 tid=77];java/lang/Thread.run;org/fts/goa/Dispatcher.invoke;"
                        + "org/fts/goa/Dispatcher.await;java/util/concurrent/CompletableFuture.get;futex_wait_[k]"));
        assertEquals("request thread: JacORB's reply write", ProfileStages.stage(
                "[RequestProcessor-1 tid=70];org/jacorb/poa/RequestProcessor.run;org/jacorb/orb/dsi/ServerRequest.reply"));
        assertEquals("request thread: FTS capture, cast, answer", ProfileStages.stage(
                "[RequestProcessor-1 tid=70];org/fts/goa/Dispatcher.invoke;org/fts/goa/CastPath.cast"));
        assertEquals("FTS execute (replay, reply cache)", ProfileStages.stage(
                "[fts-deliver-r0#abc tid=12];org/fts/goa/DeliveryRouter.deliver;org/fts/goa/Execution.execute;"
                        + "org/fts/goa/Replay.execute"));
        assertEquals("FTS deliver (decode, route)", ProfileStages.stage(
                "[fts-deliver-r0#abc tid=12];org/fts/goa/DeliveryRouter.deliver;org/fts/goa/Cast.decode"));
        assertEquals("FTS delivery thread: wait/wake", ProfileStages.stage(
                "[fts-deliver-r0#abc tid=12];java/util/concurrent/LinkedBlockingQueue.take;schedule_[k]"));
        assertEquals("JGroups bundler thread: send", ProfileStages.stage("[pd-bundler-5,g,r0 tid=3];sendto"));
        assertEquals("JacORB POA dispatch (RequestController)", ProfileStages.stage("[RequestController-2 tid=9];x"));
        assertEquals("JIT compiler", ProfileStages.stage("[C2 CompilerThread0 tid=5];y"));
        assertEquals("other", ProfileStages.stage("[main tid=1];z"));
    }

    @Test
    void theFrontEndsLoopIsSplitByWhatItDoes() {
        String loop = "[fts-iiop-1 tid=40];io/netty/channel/nio/NioIoHandler.run;";
        assertEquals("front end: cast sent by JGroups on the loop", ProfileStages.stage(loop
                + "org/fts/goa/FrontDispatch.request;org/fts/batching/Batcher.drain;org/jgroups/JChannel.send"));
        assertEquals("front end: GIOP framing and headers", ProfileStages.stage(loop
                + "org/fts/goa/frontend/GiopFrames.decode"));
        assertEquals("front end: FTS identify, capture, cast", ProfileStages.stage(loop
                + "org/fts/goa/frontend/GiopConnection.channelRead;org/fts/goa/FrontDispatch.request"));
        assertEquals("front end: waiting for events (select, wake-ups)", ProfileStages.stage(loop
                + "sun/nio/ch/EPollSelectorImpl.doSelect;epoll_wait"));
        assertEquals("front end: reply write", ProfileStages.stage(loop
                + "io/netty/channel/AbstractChannel$AbstractUnsafe.flush0;writev"));
        assertEquals("front end: Netty read and tasks", ProfileStages.stage(loop + "io/netty/channel/nio/AbstractNioByteChannel.read"));
        assertEquals("FTS reply: encode, hand to the connection's loop", ProfileStages.stage(
                "[fts-deliver-r0#abc tid=12];org/fts/goa/Execution.execute;org/fts/goa/frontend/Exchange.reply"));
        assertEquals("FTS reply: written to the socket by the thread that made it", ProfileStages.stage(
                "[fts-deliver-r0#abc tid=12];org/fts/goa/frontend/Exchange.reply;org/fts/goa/frontend/ReplyWriter.send;"
                        + "sun/nio/ch/SocketChannelImpl.write;write"));
        assertEquals("FTS reply: written to the socket by the thread that made it", ProfileStages.stage(
                "[fts-exec-1 tid=13];org/fts/goa/frontend/ReplyWriter.send;sun/nio/ch/SocketChannelImpl.write"));
    }
}
