package org.fts.goa.giop;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Follows the GIOP framing of the bytes one connection receives, and finds the first message that asks for
 * more memory than a limit allows: before the receiver has seen the whole 12-byte header, so before JacORB
 * allocates the buffer that header declares.
 *
 * <p>A GIOP header is {@code "GIOP"}, major, minor, flags (bit 0: little-endian, bit 1: more fragments follow),
 * message type, and the size of the rest of the message as an unsigned 32-bit number in that byte order. A
 * message is refused when its header does not start with {@code "GIOP"}, or declares a size above the limit.
 *
 * <p>Fragmented messages are bounded as a whole. JacORB 3.9 reassembles GIOP 1.2 fragments
 * ({@code GIOPConnection.receiveMessagesLoop}): a message with the more-fragments bit opens a reassembly under
 * the request id that starts its body, and each {@code Fragment} message (type 7, the request id again first)
 * is appended to it until one without the bit completes it. It keeps no bound on that. So this guard keeps the
 * same account: the bytes of every message being reassembled on the connection, plus {@link #CHAIN_OVERHEAD}
 * per message for JacORB's bookkeeping, may not exceed the limit either. A part that would take the account over
 * is refused by its header too, before its request id is known: a part JacORB would drop (an unknown or reused
 * request id) counts as if it were kept, which only a broken or hostile peer sends. Before GIOP 1.2 JacORB
 * reassembles nothing (it answers or drops such fragments), so nothing is counted there.
 *
 * <p>It also tells a {@link Frames} listener where each message starts and ends, and the request id (and, for a
 * Request, whether a reply is expected) of every GIOP 1.2 Request and Fragment: the intake budget
 * ({@link IntakeAccount}) holds a request's bytes from its header until its reply.
 *
 * <p>Not thread-safe: one connection's bytes are read by one thread at a time.
 */
final class GiopFrameGuard {
    static final int HEADER = 12;
    /** What one incomplete fragmented message is counted for beyond its bytes (JacORB's stream and map entries). */
    static final int CHAIN_OVERHEAD = 256;

    static final int REQUEST = 0;
    static final int REPLY = 1;
    private static final int CANCEL_REQUEST = 2;
    static final int LOCATE_REPLY = 4;
    private static final int CLOSE_CONNECTION = 5;
    private static final int MESSAGE_ERROR = 6;
    static final int FRAGMENT = 7;
    private static final String[] TYPES = {"Request", "Reply", "CancelRequest", "LocateRequest", "LocateReply",
        "CloseConnection", "MessageError", "Fragment"};

    /**
     * What the guard sees of each message, in order: {@code header}, then {@code requestId} for a GIOP 1.2 Request
     * or Fragment once its id (and a Request's response flags) arrived, then {@code end} once its body is read.
     * Called on the reading thread, before the bytes that complete each step are handed to the reader; a
     * {@code header} call may block, which holds the reader back.
     */
    interface Frames {
        Frames NONE = new Frames() {
        };

        default void header(int minor, int type, long size) {
        }

        default void requestId(int id, boolean expectsReply) {
        }

        default void end() {
        }
    }

    private final long limit;
    private final Frames frames;
    private final Set<Integer> idTypes;
    private final byte[] header = new byte[HEADER];
    private int headerFill;
    /** Bytes of the current message's body still to come. */
    private long bodyLeft;
    /** The current message's size, and whether its body starts with a request id that the account needs. */
    private long size;
    private boolean needsId;
    /** Whether this message's id goes to the listener; for a Request, after its response-flags octet. */
    private boolean tellsId;
    private boolean flagsNext;
    private boolean more;
    private boolean fragment;
    private int idFill;
    private int id;
    /** Messages being reassembled: request id to the bytes counted for it; and their sum. */
    private final Map<Integer, Long> chains = new HashMap<>();
    private long chained;
    private String refused;

    /** @param limit the largest message size (after the header), and the largest reassembly account */
    GiopFrameGuard(long limit) {
        this(limit, Frames.NONE, Set.of());
    }

    /** @param idTypes the GIOP 1.2 message types whose request id goes to {@code frames} */
    GiopFrameGuard(long limit, Frames frames, Set<Integer> idTypes) {
        this.limit = limit;
        this.frames = frames;
        this.idTypes = idTypes;
    }

    /**
     * Takes the next {@code len} bytes the connection received. Returns why the connection must close, or null;
     * once it returned a reason it returns it again for every later call.
     */
    String accept(byte[] b, int off, int len) {
        int i = off;
        int end = off + len;
        while (refused == null && i < end) {
            if (headerFill < HEADER) {
                int n = Math.min(HEADER - headerFill, end - i);
                System.arraycopy(b, i, header, headerFill, n);
                headerFill += n;
                i += n;
                if (headerFill == HEADER) {
                    refused = startMessage();
                }
                continue;
            }
            if ((needsId || tellsId) && idFill < 4) {
                id = id << 8 | (b[i] & 0xff);
                i++;
                bodyLeft--;
                if (++idFill == 4) {
                    int requestId = littleEndian() ? Integer.reverseBytes(id) : id;
                    if (needsId) {
                        account(requestId);
                    }
                    if (tellsId && !flagsNext) {
                        tellsId = false;
                        frames.requestId(requestId, true);
                    }
                }
            } else if (tellsId && flagsNext) {   // GIOP 1.2 Request: response_flags follows the id
                tellsId = false;
                frames.requestId(littleEndian() ? Integer.reverseBytes(id) : id, (b[i] & 0x03) != 0);
                i++;
                bodyLeft--;
            } else {
                long n = Math.min(bodyLeft, end - i);
                i += (int) n;
                bodyLeft -= n;
            }
            if (bodyLeft == 0) {
                headerFill = 0;
                frames.end();
            }
        }
        return refused;
    }

    /** A complete header: check it, and set up the body. */
    private String startMessage() {
        if (header[0] != 'G' || header[1] != 'I' || header[2] != 'O' || header[3] != 'P') {
            return "not a GIOP message (its header does not start with \"GIOP\")";
        }
        size = littleEndian()
                ? (header[8] & 0xffL) | (header[9] & 0xffL) << 8 | (header[10] & 0xffL) << 16 | (header[11] & 0xffL) << 24
                : (header[8] & 0xffL) << 24 | (header[9] & 0xffL) << 16 | (header[10] & 0xffL) << 8 | (header[11] & 0xffL);
        int type = header[7];
        if (size > limit) {
            return "GIOP " + header[4] + "." + header[5] + " " + typeName(type) + " declares " + size + " bytes";
        }
        more = (header[6] & 0x02) != 0;
        fragment = type == FRAGMENT;
        boolean opens = more && !fragment && type != CANCEL_REQUEST && type != CLOSE_CONNECTION
                && type != MESSAGE_ERROR;
        needsId = header[4] == 1 && header[5] >= 2 && (fragment || opens) && size >= 4;
        long adds = !needsId ? 0 : fragment ? (chains.isEmpty() ? 0 : size) : HEADER + size + CHAIN_OVERHEAD;
        if (chained + adds > limit) {
            return "fragmented messages being reassembled would reach " + (chained + adds) + " bytes ("
                    + (chains.size() + (fragment ? 0 : 1)) + " messages)";
        }
        boolean giop12 = header[4] == 1 && header[5] >= 2;
        flagsNext = type == REQUEST;
        tellsId = giop12 && idTypes.contains(type) && size >= (flagsNext ? 5 : 4);
        idFill = 0;
        id = 0;
        bodyLeft = size;
        frames.header(header[5], type, size);
        if (size == 0) {
            headerFill = 0;
            frames.end();
        }
        return null;
    }

    /**
     * The request id of a fragmented message's part is known: keep the reassembly account as JacORB keeps its
     * reassemblies. The header already checked that this part fits.
     */
    private void account(int requestId) {
        Long held = chains.get(requestId);
        if (!fragment) {   // a first part; JacORB drops it if the id is already being reassembled
            if (held == null) {
                chains.put(requestId, HEADER + size + CHAIN_OVERHEAD);
                chained += HEADER + size + CHAIN_OVERHEAD;
            }
        } else if (held != null) {   // a Fragment of a known message; JacORB drops others
            if (more) {
                chains.put(requestId, held + size);
                chained += size;
            } else {
                chains.remove(requestId);   // complete: JacORB hands it on, and the account is free again
                chained -= held;
            }
        }
    }

    private boolean littleEndian() {
        return (header[6] & 0x01) != 0;
    }

    private static String typeName(int type) {
        return type >= 0 && type < TYPES.length ? TYPES[type] : "message of type " + type;
    }
}
