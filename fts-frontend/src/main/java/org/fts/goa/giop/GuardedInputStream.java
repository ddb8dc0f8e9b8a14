package org.fts.goa.giop;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.function.Consumer;

/**
 * A connection's input as JacORB reads it, passed through a {@link GiopFrameGuard}. Bytes go to the reader as
 * they come, except those that complete a refused header: then {@code onRefusal} closes the connection and the
 * read fails with an {@link IOException}, which JacORB takes as the peer having closed it
 * ({@code GIOPConnection.getMessage} → {@code streamClosed}). JacORB reads a message's 12-byte header with
 * one read call (or several, each asking only for the header's remaining bytes) and allocates the body's buffer
 * only after it has them all, so a refused message costs no buffer.
 *
 * <p>One reader at a time, as JacORB reads a connection.
 */
final class GuardedInputStream extends FilterInputStream {
    private final GiopFrameGuard guard;
    private final Consumer<String> onRefusal;
    private String refused;

    GuardedInputStream(InputStream in, GiopFrameGuard guard, Consumer<String> onRefusal) {
        super(in);
        this.guard = guard;
        this.onRefusal = onRefusal;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (refused != null) {
            throw new IOException("connection closed by the GIOP guard: " + refused);
        }
        int n = in.read(b, off, len);
        if (n > 0) {
            String why;
            try {
                why = guard.accept(b, off, n);   // may wait for the intake budget
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            if (why != null) {
                refused = why;
                onRefusal.accept(why);
                throw new IOException("connection closed by the GIOP guard: " + why);
            }
        }
        return n;
    }

    /** Skipped bytes are read, so that the guard sees them. */
    @Override
    public long skip(long n) throws IOException {
        byte[] scratch = new byte[(int) Math.min(Math.max(n, 0), 8192)];
        long skipped = 0;
        while (skipped < n) {
            int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
            if (r < 0) {
                break;
            }
            skipped += r;
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    @Override
    public synchronized void mark(int readlimit) {
        // not supported: a reset would make the guard see bytes twice
    }

    @Override
    public synchronized void reset() throws IOException {
        throw new IOException("mark/reset not supported");
    }
}
