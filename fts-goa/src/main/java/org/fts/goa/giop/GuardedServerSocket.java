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
 * sends a GIOP message larger than the limit is closed before the ORB allocates that message; and every
 * connection takes what it reads from the replica's {@link IntakeBudget} ({@link IntakeAccount}).
 */
final class GuardedServerSocket extends ServerSocket {
    private final long limit;
    private final IntakeBudget budget;

    /** @param backlog below 1: the platform's default */
    GuardedServerSocket(int port, int backlog, InetAddress bindAddr, long limit, IntakeBudget budget)
            throws IOException {
        super(port, backlog, bindAddr);
        this.limit = limit;
        this.budget = budget;
    }

    @Override
    public Socket accept() throws IOException {
        if (isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (!isBound()) {
            throw new SocketException("Socket is not bound yet");
        }
        GuardedSocket s = new GuardedSocket(limit, budget);
        implAccept(s);
        return s;
    }

    /** An accepted connection: its input is guarded and its output watched (one of each per connection). */
    static final class GuardedSocket extends Socket {
        private final long limit;
        private final IntakeBudget budget;
        private final IntakeAccount account;
        private InputStream guarded;
        private OutputStream watched;

        GuardedSocket(long limit, IntakeBudget budget) {
            this.limit = limit;
            this.budget = budget;
            this.account = new IntakeAccount(budget, () -> GiopGuard.heldBack(getRemoteSocketAddress(), budget));
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (guarded == null) {
                guarded = new GuardedInputStream(super.getInputStream(), new GiopFrameGuard(limit, account,
                        Set.of(GiopFrameGuard.REQUEST, GiopFrameGuard.FRAGMENT)), this::refuse);
            }
            return guarded;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (watched == null) {
                watched = new ReplyWatch(super.getOutputStream(), account);
            }
            return watched;
        }

        @Override
        public void close() throws IOException {
            try {
                super.close();
            } finally {
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
    }
}
