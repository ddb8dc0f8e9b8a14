package org.fts.goa.frontend;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.omg.CORBA.SystemException;
import org.omg.IOP.ServiceContext;

/**
 * One request and its answer: the adaptor answers it once, from any thread ({@link #reply}, {@link #fail});
 * later answers are ignored. The caller never blocks on the write ({@link ReplyWriter}): a client that stops reading
 * holds up only itself ({@link GiopConnection}'s high-water mark).
 */
public final class Exchange {
    private final GiopRequest request;
    private final GiopConnection connection;
    private final AtomicBoolean answered = new AtomicBoolean();
    private volatile long deadline;
    private volatile Runnable onTimeout;
    private final int taken;

    /** @param taken the intake bytes the request holds until it is answered */
    Exchange(GiopRequest request, GiopConnection connection, int taken) {
        this.request = request;
        this.connection = connection;
        this.taken = taken;
    }

    public GiopRequest request() {
        return request;
    }

    /** The connection, compared by identity. */
    public ClientConnection connection() {
        return connection;
    }

    /** The connection's transmission code sets (0: none negotiated), as {tcs, tcsw}. */
    public int[] codeSets() {
        return connection.codeSets();
    }

    /** Replies with {@code status}, {@code contexts} and {@code body} (captured from an 8-aligned origin). */
    public void reply(int status, List<ServiceContext> contexts, byte[] body) {
        if (claim()) {
            connection.send(Giop.reply(request.minor(), request.requestId(), status, contexts, body), this);
        }
    }

    /** Replies with {@code e} as a system exception. */
    public void fail(SystemException e) {
        ServiceContext detail = e.getMessage() == null ? null : connection.requests().exceptionDetail(e.getMessage());
        reply(Giop.SYSTEM_EXCEPTION, detail == null ? List.of() : List.of(detail), systemExceptionBody(e));
    }

    /** A system exception marshalled as a reply body. */
    public static byte[] systemExceptionBody(SystemException e) {
        String name = e.getClass().getName();
        String id = "IDL:omg.org/CORBA/" + name.substring(name.lastIndexOf('.') + 1) + ":1.0";
        return Giop.systemExceptionBody(id, e.minor, e.completed.value());
    }

    /**
     * Unless answered within {@code nanos}, {@code action} runs on the connection's event loop (it should
     * {@link #fail} the request); the connection checks a few times a second.
     */
    public void expireAfter(long nanos, Runnable action) {
        this.onTimeout = action;
        this.deadline = System.nanoTime() + nanos;
        connection.watch(this);
    }

    /** A request that expects no reply (oneway) is done: its intake bytes go back. */
    public void done() {
        if (claim()) {
            connection.release(this);
        }
    }

    boolean answered() {
        return answered.get();
    }

    /** Whether the deadline passed unanswered: then its action runs. */
    boolean expire(long now) {
        Runnable a = onTimeout;
        if (a == null || answered.get() || now - deadline < 0) {
            return false;
        }
        a.run();
        return true;
    }

    private boolean claim() {
        return answered.compareAndSet(false, true);
    }

    int bytes() {
        return taken;
    }
}
