package org.fts.goa;

import org.fts.ft.FtConstants;
import org.fts.ft.Ior;
import org.fts.ft.client.CallerIdentity;
import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ClientRequestInterceptor;
import org.omg.PortableInterceptor.ForwardRequest;

/**
 * With {@code fts.outcalls=ordered}: forwards a servant's call to an object that is not a group, made while it
 * executes an ordered request, to this replica's relay ({@link Outcalls}), which has one replica make it and every
 * replica answer it with the outcome ordered first. Registered on every adaptor's ORB by {@link GroupPOAInitializer}
 * (as the initial reference {@value #INITIAL_REFERENCE}); does nothing until an adaptor in {@code ordered} mode binds
 * it, nor for calls to object groups (they carry the request's identity: {@link CallerIdentity}), nor for calls from
 * other threads.
 */
public final class OutcallInterceptor extends LocalObject implements ClientRequestInterceptor {
    /** The initial reference the adaptor finds it by. */
    public static final String INITIAL_REFERENCE = "FTSOutcalls";

    private volatile Outcalls outcalls;
    /** The call this thread just forwarded to the relay, until its reinvocation there. */
    private final ThreadLocal<String> forwarded = new ThreadLocal<>();

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
        if (o.isRelay(endpoint)) {
            String forwarded = this.forwarded.get();
            this.forwarded.remove();
            if (!relayed) {   // a stub JacORB rebound to the relay earlier, used outside a request or for a built-in
                String key = new String(Ior.Iiop.decode(profile.data()).objectKey(),
                        java.nio.charset.StandardCharsets.UTF_8);
                String target = key.length() < 36 ? null : o.target(key.substring(key.length() - 36));
                if (target == null) {
                    return;   // the relay answers that it knows no such call
                }
                throw new ForwardRequest(((org.omg.CORBA.portable.ObjectImpl) ri.effective_target())._orb()
                        .string_to_object(target));
            }
            String kind = "relayed/" + ri.operation();
            String call = forwarded != null ? forwarded : caller.clientId(kind) + "#" + caller.nextCall(kind);
            if (forwarded == null) {
                o.register(call, context.origin());
            }
            ri.add_request_service_context(new org.omg.IOP.ServiceContext(FtConstants.FTS_OUTCALL,
                    call.getBytes(java.nio.charset.StandardCharsets.UTF_8)), true);
            return;
        }
        if (!relayed || profile.component(FtConstants.TAG_FT_GROUP) != null) {
            return;   // not from an ordered request, an ORB built-in, or an object group (its identity is the request's)
        }
        org.omg.CORBA.Object target = ri.effective_target();
        String ior = ((org.omg.CORBA.portable.ObjectImpl) target)._orb().object_to_string(target);
        String kind = "relayed/" + ri.operation();
        String call = caller.clientId(kind) + "#" + caller.nextCall(kind);
        org.omg.CORBA.Object relay = o.relayFor(call, ior, context.origin());
        this.forwarded.set(call);   // the reinvocation on the relay, next on this thread, carries it
        throw new ForwardRequest(relay);
    }

    @Override
    public void send_poll(ClientRequestInfo ri) {
        // no time-independent invocations
    }

    @Override
    public void receive_reply(ClientRequestInfo ri) {
        // the relay answered
    }

    @Override
    public void receive_exception(ClientRequestInfo ri) {
        forwarded.remove();   // a forward that failed before its reinvocation leaves nothing for the next call
    }

    @Override
    public void receive_other(ClientRequestInfo ri) {
        // the forward
    }
}
