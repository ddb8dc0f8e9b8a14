package org.fts.ft.client;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;

import org.jacorb.orb.Delegate;
import org.jacorb.orb.Delegate.INVOCATION_KEY;
import org.omg.TimeBase.UtcT;

/**
 * The identity of the JacORB invocation a client interceptor point belongs to: what tells a reinvocation of a
 * request from a new request, without any clock.
 *
 * <p>JacORB keeps a per-thread stack of invocation contexts ({@link Delegate#getInvocationContext()}).
 * {@code Delegate.request} pushes a new context when a stub or DII request starts an invocation. JacORB keeps
 * that context across every {@code RemarshalException}, which is how it carries a {@code ForwardRequest}
 * raised by an interceptor back to the stub, which then reinvokes on the same thread. It pops the context when
 * the invocation returns or raises to its caller ({@code Delegate.invoke_internal}, and the deadline checks of
 * {@code Delegate.request}). Every interceptor call runs under one more context, marked
 * {@code INTERCEPTOR_CALL} ({@code ClientInterceptorIterator.invoke}), so that a CORBA call made by an
 * interceptor is an invocation of its own. So, inside an interceptor point, the context just below the top is
 * the invocation's. It is the same object for every attempt of one invocation, and a different object for every
 * new invocation, since this class's callers hold it and a held object's identity cannot be reused.
 */
public final class JacorbInvocation {
    private JacorbInvocation() {
    }

    /**
     * The invocation the calling interceptor point belongs to, compared by identity; null when it cannot be
     * known (not called from JacORB's client interceptor iterator, or not JacORB). Call only on the thread
     * of the interceptor point.
     */
    public static Object current() {
        ArrayDeque<Map<INVOCATION_KEY, UtcT>> stack;
        try {
            stack = Delegate.getInvocationContext();
        } catch (LinkageError notJacorb) {
            return null;
        }
        Iterator<Map<INVOCATION_KEY, UtcT>> it = stack.iterator();
        if (!it.hasNext() || !it.next().containsKey(INVOCATION_KEY.INTERCEPTOR_CALL)) {
            return null;   // not inside an interceptor call as JacORB 3.9 makes it
        }
        return it.hasNext() ? it.next() : null;
    }
}
