package org.fts.goa.giop;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A connection's output as JacORB writes it, followed through GIOP framing so that the {@link IntakeAccount}
 * learns when a GIOP 1.2 Reply or LocateReply leaves, by its request id. The id is taken as the bytes pass, before
 * they are written: a reply that blocks on a client that does not read gives its request's bytes back all the
 * same. Writes are serialized, as JacORB serializes a connection's messages.
 */
final class ReplyWatch extends FilterOutputStream {
    private final GiopFrameGuard framing;
    private final Consumer<Boolean> writing;

    /** @param writing told when each write starts (true) and ends (false), for the {@link IoWatchdog} */
    ReplyWatch(OutputStream out, IntakeAccount account, Consumer<Boolean> writing) {
        super(out);
        this.writing = writing;
        this.framing = new GiopFrameGuard(Long.MAX_VALUE, new GiopFrameGuard.Frames() {
            @Override
            public void requestId(int id, boolean expectsReply) {
                account.replied(id);
            }
        }, Set.of(GiopFrameGuard.REPLY, GiopFrameGuard.LOCATE_REPLY));
    }

    @Override
    public synchronized void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        framing.accept(b, off, len);   // never refuses: no limit; output that is not GIOP is not followed further
        writing.accept(true);
        try {
            out.write(b, off, len);
        } finally {
            writing.accept(false);
        }
    }
}
