package org.fts.goa.giop;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;

/**
 * A server socket whose accepted connections read through a {@link GiopFrameGuard}: a connection whose peer
 * sends a GIOP message larger than the limit is closed before the ORB allocates that message.
 */
final class GuardedServerSocket extends ServerSocket {
    private final long limit;

    /** @param backlog below 1: the platform's default */
    GuardedServerSocket(int port, int backlog, InetAddress bindAddr, long limit) throws IOException {
        super(port, backlog, bindAddr);
        this.limit = limit;
    }

    @Override
    public Socket accept() throws IOException {
        if (isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (!isBound()) {
            throw new SocketException("Socket is not bound yet");
        }
        GuardedSocket s = new GuardedSocket(limit);
        implAccept(s);
        return s;
    }

    /** An accepted connection: its input stream is guarded (one stream, one guard, per connection). */
    static final class GuardedSocket extends Socket {
        private final long limit;
        private InputStream guarded;

        GuardedSocket(long limit) {
            this.limit = limit;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (guarded == null) {
                guarded = new GuardedInputStream(super.getInputStream(), new GiopFrameGuard(limit), this::refuse);
            }
            return guarded;
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
