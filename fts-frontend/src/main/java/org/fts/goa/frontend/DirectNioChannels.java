package org.fts.goa.frontend;

import java.util.List;

import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDK-selector listener whose connections lend their {@link java.nio.channels.SocketChannel} to {@link
 * ReplyWriter}, so that the thread that produced a reply can write it without waking the event loop. The JDK's
 * channel serialises writers and never releases its descriptor while one is writing (a close waits for it), which
 * Netty's native channels do not promise: a direct write there could land on a recycled descriptor.
 */
final class DirectNioChannels {
    private static final Logger LOG = LoggerFactory.getLogger(DirectNioChannels.class);

    private DirectNioChannels() {
    }

    /** The listening channel: each accepted socket becomes a {@link Connection}. */
    public static final class Server extends NioServerSocketChannel {
        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            java.nio.channels.SocketChannel ch = javaChannel().accept();
            if (ch == null) {
                return 0;
            }
            try {
                buf.add(new Connection(this, ch));
                return 1;
            } catch (Throwable t) {   // this connection fails, never the listener (as Netty's own accept does)
                LOG.warn("FTS front end: an accepted connection could not be set up: {}", t.toString(), t);
                try {
                    ch.close();
                } catch (java.io.IOException ignored) {
                    // it is gone either way
                }
                return 0;
            }
        }
    }

    /** An accepted connection whose JDK channel a {@link ReplyWriter} may write to. */
    static final class Connection extends NioSocketChannel {
        Connection(Server parent, java.nio.channels.SocketChannel socket) {
            super(parent, socket);
        }

        java.nio.channels.SocketChannel socket() {
            return javaChannel();
        }
    }
}
