package org.fts.goa.giop;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;

/**
 * A server socket whose accepted connections read through a {@link GiopFrameGuard}: a connection whose peer
 * sends a GIOP message larger than the limit is closed before the ORB allocates that message; every connection
 * takes what it reads from the replica's {@link IntakeBudget} ({@link IntakeAccount}); and one stuck in the
 * middle of a message, either way, is closed by the {@link IoWatchdog}.
 */
final class GuardedServerSocket extends ServerSocket {
    private final long limit;
    private final IntakeBudget budget;
    private final IoWatchdog watchdog;

    /** @param backlog below 1: the platform's default */
    GuardedServerSocket(int port, int backlog, InetAddress bindAddr, long limit, IntakeBudget budget,
                        IoWatchdog watchdog) throws IOException {
        super(port, backlog, bindAddr);
        this.limit = limit;
        this.budget = budget;
        this.watchdog = watchdog;
    }

    @Override
    public Socket accept() throws IOException {
        if (isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (!isBound()) {
            throw new SocketException("Socket is not bound yet");
        }
        GuardedSocket s = new GuardedSocket(limit, budget, watchdog);
        implAccept(s);
        watchdog.watch(s);
        return s;
    }

    /** An accepted connection: its input is guarded and its output watched (one of each per connection). */
    static final class GuardedSocket extends Socket implements IoWatchdog.Watched, GiopFrameGuard.Frames {
        private final long limit;
        private final IntakeAccount account;
        private final IoWatchdog watchdog;
        /** When the message being read (after its header) and the write under way started; 0: none. */
        private volatile long readingSince;
        private volatile long writingSince;
        private InputStream guarded;
        private OutputStream watched;

        GuardedSocket(long limit, IntakeBudget budget, IoWatchdog watchdog) {
            this.limit = limit;
            this.watchdog = watchdog;
            this.account = new IntakeAccount(budget, () -> GiopGuard.heldBack(getRemoteSocketAddress(), budget));
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (guarded == null) {
                guarded = new GuardedInputStream(super.getInputStream(), new GiopFrameGuard(limit, this,
                        Set.of(GiopFrameGuard.REQUEST, GiopFrameGuard.FRAGMENT)), this::refuse);
            }
            return guarded;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (watched == null) {
                watched = new ReplyWatch(super.getOutputStream(), account, this::writing);
            }
            return watched;
        }

        @Override
        public void header(int minor, int type, long size) {
            account.header(minor, type, size);   // may wait for the budget: the clock starts after
            readingSince = clock();
        }

        @Override
        public void requestId(int id, boolean expectsReply) {
            account.requestId(id, expectsReply);
        }

        @Override
        public void end() {
            readingSince = 0;
            account.end();
        }

        private void writing(boolean started) {
            writingSince = started ? clock() : 0;
        }

        @Override
        public long busySince() {
            long r = readingSince;
            long w = writingSince;
            return r == 0 ? w : w == 0 ? r : Math.min(r, w);
        }

        @Override
        public void expire(String why) {
            GiopGuard.timedOut(getRemoteSocketAddress(), why);
            try {
                close();
            } catch (IOException e) {
                // closing anyway: the blocked reader or writer gets an exception
            }
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } finally {
                watchdog.unwatch(this);
                account.close();
            }
        }

        private void refuse(String why) {
            GiopGuard.refused(getRemoteSocketAddress(), why, limit);
            try {
                close();
            } catch (IOException e) {
                // closing anyway; the reader's IOException follows
            }
        }

        /** Never 0, which means "not busy". */
        private static long clock() {
            long t = System.nanoTime();
            return t == 0 ? 1 : t;
        }
    }
}
