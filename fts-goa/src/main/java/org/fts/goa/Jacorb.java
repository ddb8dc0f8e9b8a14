package org.fts.goa;

import org.fts.goa.intake.Request;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.CodeSet;
import org.jacorb.orb.SystemExceptionHelper;
import org.jacorb.orb.dsi.ServerRequest;
import org.jacorb.orb.giop.GIOPConnection;
import org.jacorb.orb.giop.MessageInputStream;
import org.jacorb.orb.giop.ServiceContextTransportingOutputStream;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.IOP.ServiceContext;

/**
 * The one place of the adaptor that reaches into JacORB 3.9's own classes (docs/platform.md has the offsets): a
 * request's raw arguments and their encoding, its service contexts, streams to replay a request and capture
 * its reply, system exceptions as bytes, service contexts on a reply, and ORB settings. Everything else in the
 * GOA sees only the standard CORBA API and these methods. JacORB keeps a stream's byte order protected: it is
 * read through a method handle, so nothing of FTS lives in JacORB's packages.
 */
final class Jacorb {
    /** A request's arguments as raw bytes, and what replaying them needs. */
    record Arguments(byte[] body, int pad, int giopMinor, boolean littleEndian, int tcs, int tcsw,
                     boolean responseExpected) {
    }

    private static final MethodHandle LITTLE_ENDIAN = littleEndianAccessor();

    private Jacorb() {
    }

    private static MethodHandle littleEndianAccessor() {
        try {
            return MethodHandles.privateLookupIn(CDRInputStream.class, MethodHandles.lookup())
                    .findVirtual(CDRInputStream.class, "getLittleEndian", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("JacORB's CDRInputStream.getLittleEndian() is not there: " + e);
        }
    }

    /** How many bytes of arguments follow the request header in {@code in}, or -1 if unknown. */
    static long argumentBytes(InputStream in) {
        if (in instanceof MessageInputStream msg && in instanceof CDRInputStream cdr) {
            return Math.max(0, 12L + msg.msg_size - cdr.get_pos());   // 12: the GIOP header; msg_size follows it
        }
        return -1;
    }

    /**
     * Stage 4: the request's marshalled arguments, from the stream's position to the message's end.
     *
     * @throws MARSHAL (COMPLETED_NO) with the reason when the stream is not a JacORB request stream or its
     *                 framing is inconsistent
     */
    static Arguments arguments(String operation, InputStream in, ResponseHandler rh) {
        if (!(in instanceof CDRInputStream cdr) || !(in instanceof MessageInputStream msg)
                || !(rh instanceof ServerRequest sr)) {
            throw new MARSHAL("FTS cannot capture " + operation + ": not a JacORB GIOP request stream ("
                    + in.getClass().getName() + ")", 0, CompletionStatus.COMPLETED_NO);
        }
        int start = cdr.get_pos();
        int end = 12 + msg.msg_size;
        if (end < start && start - end < 8) {
            end = start;   // no arguments: GIOP 1.2 aligns the (empty) body's start past the message's end
        }
        if (start < 12 || end < start) {
            throw new MARSHAL("FTS cannot capture " + operation + ": body [" + start + ", " + end
                    + ") is not inside the message", 0, CompletionStatus.COMPLETED_NO);
        }
        int pad = start % 8;   // copied from an 8-aligned start, so that replaying aligns alike
        byte[] body = new byte[pad + end - start];
        try {
            cdr.read_octet_array(body, pad, end - start);
        } catch (RuntimeException e) {
            throw new MARSHAL("FTS cannot capture " + operation + ": " + e, 0, CompletionStatus.COMPLETED_NO);
        }
        GIOPConnection conn = sr.getConnection();
        int tcs = conn.getTCS() == null ? 0 : conn.getTCS().getId();
        int tcsw = conn.getTCSW() == null ? 0 : conn.getTCSW().getId();
        return new Arguments(body, pad, cdr.getGIOPMinor(), littleEndian(cdr), tcs, tcsw, sr.responseExpected());
    }

    /**
     * A client request's arguments as raw bytes, in {@code send_request} (an ordered outcall, {@link Outcalls}): the
     * stub has marshalled them into JacORB's request stream, whose GIOP 1.2 body starts 8-aligned.
     */
    static Arguments requestArguments(org.omg.PortableInterceptor.ClientRequestInfo ri) {
        if (!(ri instanceof org.jacorb.orb.portableInterceptor.ClientRequestInfoImpl info)
                || info.getRequestStream() == null) {
            throw new MARSHAL("FTS cannot relay " + ri.operation() + ": not a JacORB request stream", 0,
                    CompletionStatus.COMPLETED_NO);
        }
        org.jacorb.orb.giop.RequestOutputStream ros = info.getRequestStream();
        int start = ros.getBodyBegin();
        int end = ros.size();
        if (ros.getGIOPMinor() != 2 || start % 8 != 0 || end < start) {
            throw new MARSHAL("FTS relays GIOP 1.2 calls only, not " + ri.operation() + " over GIOP 1."
                    + ros.getGIOPMinor(), 0, CompletionStatus.COMPLETED_NO);
        }
        byte[] all = ros.getBufferCopy();
        byte[] body = java.util.Arrays.copyOfRange(all, start, end);
        return new Arguments(body, 0, ros.getGIOPMinor(), false, 0, 0, ri.response_expected());
    }

    /**
     * What is left of a reply body in {@code in} (from its position to the message's end), raw: an outcall's
     * outcome ({@link Outcalls}). Only an 8-aligned, big-endian body can be copied into another reply as it is.
     */
    static byte[] rest(InputStream in) {
        if (!(in instanceof CDRInputStream cdr) || !(in instanceof MessageInputStream msg)) {
            throw new MARSHAL("FTS cannot relay a reply from " + in.getClass().getName(), 0,
                    CompletionStatus.COMPLETED_YES);
        }
        int start = cdr.get_pos();
        int end = Math.max(start, 12 + msg.msg_size);
        if (start % 8 != 0 || littleEndian(cdr)) {
            throw new MARSHAL("FTS relays GIOP 1.2 big-endian replies only (body at " + start + ", "
                    + (littleEndian(cdr) ? "little" : "big") + "-endian)", 0, CompletionStatus.COMPLETED_YES);
        }
        byte[] body = new byte[end - start];
        cdr.read_octet_array(body, 0, body.length);
        return body;
    }

    private static boolean littleEndian(CDRInputStream in) {
        try {
            return (boolean) LITTLE_ENDIAN.invokeExact(in);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The connection a request arrived on, as an opaque handle compared by identity; null if unknown. */
    static Object connection(ResponseHandler rh) {
        return rh instanceof ServerRequest sr ? sr.getConnection() : null;
    }

    /** Whether the request of {@code rh} expects a reply (false if unknown). */
    static boolean responseExpected(ResponseHandler rh) {
        return rh instanceof ServerRequest sr && sr.responseExpected();
    }

    /** Whether a connection of {@link #connection} is still open. */
    static boolean isOpen(Object connection) {
        return connection instanceof GIOPConnection c && c.getTransport() != null && c.getTransport().is_connected();
    }

    /** Stage 0: the request of {@code rh} is answered with GIOP LOCATION_FORWARD to {@code target}. */
    static void forward(ResponseHandler rh, org.omg.CORBA.Object target) {
        ((ServerRequest) rh).setLocationForward(new org.omg.PortableServer.ForwardRequest(target));
    }

    /** The request's service contexts (empty for a handler that is not JacORB's). */
    static List<ServiceContext> serviceContexts(ResponseHandler rh) {
        return rh instanceof ServerRequest sr ? List.of(sr.getServiceContext()) : List.of();
    }

    /** Stage 8: a stream that reads {@code r}'s arguments exactly as the receiving replica's stream would. */
    static InputStream replayStream(ORB orb, Request r) {
        CDRInputStream in = new CDRInputStream(orb, r.body(), r.littleEndian());
        in.setGIOPMinor(r.giopMinor());
        in.setCodeSet(codeSet(r.tcs()), codeSet(r.tcsw()));
        in.skip(r.pad());
        return in;
    }

    /** Stage 8: a stream that captures a reply to {@code r}, encoded as {@code r}'s client expects. */
    static OutputStream replyStream(ORB orb, Request r) {
        CDROutputStream out = new CDROutputStream(orb);
        out.setGIOPMinor(r.giopMinor());
        out.setCodeSets(codeSet(r.tcs()), codeSet(r.tcsw()));
        return out;
    }

    /** The bytes written to a stream of {@link #replyStream}. */
    static byte[] bytes(OutputStream out) {
        return ((CDROutputStream) out).getBufferCopy();
    }

    private static CodeSet codeSet(int id) {
        return id == 0 ? null : CodeSet.getCodeSet(id);
    }

    static void writeSystemException(OutputStream out, SystemException e) {
        SystemExceptionHelper.write(out, e);
    }

    /** Stage 10: the system exception a cached reply holds, to throw to the client. */
    static SystemException readSystemException(ORB orb, byte[] body) {
        return SystemExceptionHelper.read(new CDRInputStream(orb, body));
    }

    /**
     * Stage 10: where the reply body starts in JacORB's reply stream: a cached body captured from an 8-aligned
     * start can be copied only where the stream is 8-aligned too (GIOP 1.2).
     */
    static int replyBodyStart(OutputStream out) {
        return out instanceof CDROutputStream cdr ? cdr.size() : 0;
    }

    /** Stage 10: adds a service context to a reply (ignored for a stream that carries none). */
    static void addServiceContext(OutputStream reply, ServiceContext sc) {
        if (reply instanceof ServiceContextTransportingOutputStream s) {
            s.addServiceContext(sc);
        }
    }

    /** The ORB property that marks an outcall relay's private ORB ({@link Outcalls}): no adaptor is made for it. */
    static final String RELAY_ORB = "org.fts.goa.relay_orb";

    /** Whether {@code orb} is an outcall relay's private ORB. */
    static boolean isRelayOrb(ORB orb) {
        return orb instanceof org.jacorb.orb.ORB jacorb
                && "true".equals(jacorb.getConfiguration().getAttribute(RELAY_ORB, "false"));
    }

    /** An integer ORB setting ({@code jacorb.*}), or {@code dflt} when absent or not JacORB's ORB. */
    /** A JacORB setting of {@code orb} as text, or null if it has none (or is not JacORB). */
    static String stringSetting(ORB orb, String key) {
        if (!(orb instanceof org.jacorb.orb.ORB jacorb)) {
            return null;
        }
        return jacorb.getConfiguration().getAttribute(key, null);
    }

    static int intSetting(ORB orb, String key, int dflt) {
        if (!(orb instanceof org.jacorb.orb.ORB jacorb)) {
            return dflt;
        }
        try {
            return jacorb.getConfiguration().getAttributeAsInteger(key, dflt);
        } catch (org.jacorb.config.ConfigurationException e) {
            return dflt;
        }
    }

    /**
     * Every {@code fts.*} setting of the ORB's configuration: {@code jacorb.properties}, {@code orb.properties},
     * system properties and the properties given to {@code ORB.init}, in JacORB's precedence. Empty if the ORB
     * is not JacORB's.
     */
    static java.util.Properties ftsSettings(ORB orb) {
        java.util.Properties p = new java.util.Properties();
        if (orb instanceof org.jacorb.orb.ORB jacorb) {
            org.jacorb.config.Configuration c = jacorb.getConfiguration();
            for (String name : c.getAttributeNamesWithPrefix("fts.")) {
                p.setProperty(name, c.getAttribute(name, ""));
            }
        }
        return p;
    }

    /** The ORB an initializer is initialising, or null if it is not JacORB's. */
    static ORB orbOf(org.omg.PortableInterceptor.ORBInitInfo info) {
        return info instanceof org.jacorb.orb.portableInterceptor.ORBInitInfoImpl j ? j.getORB() : null;
    }

    /** The object id an object key of JacORB's names in POA {@code poaName}, or null if it is another POA's. */
    static byte[] objectId(byte[] objectKey, String poaName) {
        try {
            return poaName.equals(org.jacorb.poa.util.POAUtil.extractPOAName(objectKey))
                    ? org.jacorb.poa.util.POAUtil.extractOID(objectKey) : null;
        } catch (RuntimeException e) {
            return null;   // not a key of JacORB's POAs
        }
    }

    /** {@code obj} marshalled as a reply body would carry it (LOCATION_FORWARD), from an 8-aligned origin. */
    static byte[] marshal(ORB orb, org.omg.CORBA.Object obj) {
        CDROutputStream out = new CDROutputStream(orb);
        out.write_Object(obj);
        return out.getBufferCopy();
    }

    /** A system exception's message as JacORB sends it with the exception (ExceptionDetailMessage). */
    static ServiceContext exceptionDetail(String message) {
        return ServerRequest.createExceptionDetailMessage(message);
    }
}
