package org.fts.goa;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.fts.ft.FtConstants;
import org.fts.ft.Ior;
import org.fts.ft.client.CallerIdentity;
import org.fts.ft.client.JacorbInvocation;
import org.fts.goa.intake.Cast;
import org.fts.goa.intake.Reply;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ForwardRequest;

/**
 * With {@code fts.outcalls=ordered}: stops a servant's call to an object that is not a group, made while it executes
 * an ordered request, and has {@link Outcalls} make it at one replica and wait, in the JVM, for the outcome ordered
 * first. A system exception outcome it raises at once; a reply or user exception reaches the servant through a leg to
 * this replica's relay, which answers at once from the outcome, and the leg is sent again (up to
 * {@value #LEG_ATTEMPTS} times) if it fails locally, so that no replica's servant sees anything but the ordered outcome.
 * Registered on every adaptor's ORB by {@link GroupPOAInitializer} (as the initial reference
 * {@value #INITIAL_REFERENCE}); does nothing until an adaptor in {@code ordered} mode binds it, nor for calls to object
 * groups (they carry the request's identity: {@link CallerIdentity}), nor for calls from other threads.
 */
public final class OutcallInterceptor extends LocalObject implements ClientRequestInterceptor {
    /** The initial reference the adaptor finds it by. */
    public static final String INITIAL_REFERENCE = "FTSOutcalls";
    /** How many times a servant's leg to its own relay is sent before its failure is the servant's. */
    static final int LEG_ATTEMPTS = 3;
    private static final Set<String> LOCAL_FAILURES = Set.of("IDL:omg.org/CORBA/TIMEOUT:1.0",
            "IDL:omg.org/CORBA/COMM_FAILURE:1.0", "IDL:omg.org/CORBA/TRANSIENT:1.0");

    private volatile Outcalls outcalls;
    /**
     * The call whose outcome this thread's next request to the relay carries (its leg, first or again), bound to
     * JacORB's invocation ({@link JacorbInvocation}): only a request of that same invocation is its leg.
     */
    private final ThreadLocal<Leg> leg = new ThreadLocal<>();

    /** A leg waiting to be sent: the invocation it belongs to, and its call's key. */
    private record Leg(Object invocation, String key) {
    }
    /** Legs sent so far, per call, while they have not ended. */
    private final Map<String, Integer> legsSent = new ConcurrentHashMap<>();

    void bind(Outcalls o) {
        this.outcalls = o;
    }

    @Override
    public String name() {
        return "fts-outcalls";
    }

    @Override
    public void destroy() {
        outcalls = null;
    }

    @Override
    public void send_request(ClientRequestInfo ri) throws ForwardRequest {
        Outcalls o = outcalls;
        if (o == null) {
            return;
        }
        Ior.Profile profile = new Ior.Profile(ri.effective_profile().tag, ri.effective_profile().profile_data);
        String endpoint;
        try {
            endpoint = profile.endpoint();
        } catch (RuntimeException notIiop) {
            return;
        }
        RequestContext context = RequestContext.orNull();
        CallerIdentity caller = CallerIdentity.current();
        boolean relayed = context != null && caller != null && !ri.operation().startsWith("_");
        Object invocation = JacorbInvocation.current();
        Leg pending = leg.get();
        if (pending != null && (invocation == null || pending.invocation() != invocation
                || !o.hasAnswer(pending.key()))) {
            leg.remove();   // another invocation's (its reinvocation never came): nothing of this request
            pending = null;
        }
        if (o.isRelay(endpoint)) {
            leg.remove();
            String key = pending == null ? null : pending.key();
            if (key == null) {   // not a leg: a stub JacORB rebound to the relay by a forward
                String target = Outcalls.target(new String(Ior.Iiop.decode(profile.data()).objectKey(),
                        StandardCharsets.UTF_8));
                if (target == null) {
                    return;   // the relay answers that it holds no outcome for it
                }
                if (!relayed) {   // used outside a request or for a built-in: to its real target
                    throw new ForwardRequest(((ObjectImpl) ri.effective_target())._orb().string_to_object(target));
                }
                key = callKey(caller, ri);
                settle(o, o.outcome(key, target, context.origin(), ri.operation(), Jacorb.requestArguments(ri)));
            }
            legsSent.merge(key, 1, Integer::sum);
            ri.add_request_service_context(new ServiceContext(FtConstants.FTS_OUTCALL,
                    key.getBytes(StandardCharsets.UTF_8)), true);
            return;
        }
        if (!relayed || profile.component(FtConstants.TAG_FT_GROUP) != null) {
            return;   // not from an ordered request, an ORB built-in, or an object group (its identity is the request's)
        }
        org.omg.CORBA.Object target = ri.effective_target();
        String ior = ((ObjectImpl) target)._orb().object_to_string(target);
        if (pending != null) {
            // This invocation's leg, sent back to the real target by JacORB (a leg that failed while sending resets
            // the stub to its original reference), or by another thread sharing the stub: to the relay again, with
            // the outcome it holds. Never a new key: that would be a second call, made here only.
            throw new ForwardRequest(o.relayFor(ior));
        }
        String key = callKey(caller, ri);
        settle(o, o.outcome(key, ior, context.origin(), ri.operation(), Jacorb.requestArguments(ri)));
        leg.set(new Leg(invocation, key));   // the reinvocation on the relay, next on this thread, carries it
        throw new ForwardRequest(o.relayFor(ior));
    }

    private static String callKey(CallerIdentity caller, ClientRequestInfo ri) {
        String kind = "relayed/" + ri.operation();
        return caller.clientId(kind) + "#" + caller.nextCall(kind);
    }

    /** A system exception outcome ends the servant's call here; any other goes to the relay to answer its leg. */
    private static void settle(Outcalls o, Cast.Outcome outcome) {
        if (outcome.kind() == Reply.Kind.SYSTEM_EXCEPTION) {
            throw o.exception(outcome);
        }
        o.answerWith(outcome);
    }

    /** The call whose outcome request {@code ri} carried to the relay, or null for any other request. */
    private static String legOf(ClientRequestInfo ri) {
        try {
            return new String(ri.get_request_service_context(FtConstants.FTS_OUTCALL).context_data,
                    StandardCharsets.UTF_8);
        } catch (org.omg.CORBA.BAD_PARAM none) {
            return null;
        }
    }

    private void ended(String key) {
        legsSent.remove(key);
        Outcalls o = outcalls;
        if (o != null) {
            o.answered(key);
        }
    }

    @Override
    public void send_poll(ClientRequestInfo ri) {
        // no time-independent invocations
    }

    @Override
    public void receive_reply(ClientRequestInfo ri) {
        String key = legOf(ri);
        if (key != null) {
            ended(key);
        }
    }

    @Override
    public void receive_exception(ClientRequestInfo ri) throws ForwardRequest {
        String key = legOf(ri);
        if (key == null) {
            leg.remove();   // a forward that failed before its reinvocation leaves nothing for the next call
            return;
        }
        boolean local = ri.reply_status() == org.omg.PortableInterceptor.SYSTEM_EXCEPTION.value
                && LOCAL_FAILURES.contains(ri.received_exception_id());
        Object invocation = JacorbInvocation.current();
        if (local && invocation != null && legsSent.getOrDefault(key, 0) < LEG_ATTEMPTS && outcalls != null
                && outcalls.hasAnswer(key)) {
            // the leg failed inside this JVM (the process stopped past its reply timeout, say): the outcome is here
            leg.set(new Leg(invocation, key));
            throw new ForwardRequest(ri.effective_target());
        }
        ended(key);   // a user exception outcome, or a failure past the attempts: the servant's now
    }

    @Override
    public void receive_other(ClientRequestInfo ri) {
        String key = legOf(ri);
        if (key != null && !ri.response_expected()) {
            ended(key);   // a oneway leg: sent, and no reply comes
        }
    }
}
