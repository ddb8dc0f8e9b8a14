package org.fts.goa.giop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The intake budget as a connection's reader and writer use it: what a message takes, how long it keeps it, and
 * that a reader waits, and only while the budget is spent. Messages are fed through the same framing as on a
 * real connection ({@link GiopFrameGuard} in, {@link ReplyWatch} out), byte by byte where it matters.
 */
class IntakeAccountTest {
    private static final int REQUEST = 0;
    private static final int REPLY = 1;
    private static final int LOCATE_REQUEST = 3;
    private static final int LOCATE_REPLY = 4;
    private static final int FRAGMENT = 7;

    private final AtomicInteger holds = new AtomicInteger();

    /** A GIOP message of {@code size} body bytes; a 1.2 body starts with the id, a Request's then with flags. */
    private static byte[] message(int minor, int type, boolean little, boolean more, int size, int id, int flags) {
        ByteBuffer b = ByteBuffer.allocate(12 + size).order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        b.put(new byte[] {'G', 'I', 'O', 'P', 1, (byte) minor, (byte) ((little ? 1 : 0) | (more ? 2 : 0)), (byte) type});
        b.putInt(size);
        if (size >= 4) {
            b.putInt(id);
        }
        if (size >= 5) {
            b.put((byte) flags);
        }
        return b.array();
    }

    private static byte[] request(int size, int id) {
        return message(2, REQUEST, false, false, size, id, 3);
    }

    private static byte[] reply(int id) {
        return message(2, REPLY, false, false, 16, id, 0);
    }

    private IntakeAccount account(IntakeBudget budget) {
        return new IntakeAccount(budget, holds::incrementAndGet);
    }

    private static GiopFrameGuard input(IntakeAccount a) {
        return new GiopFrameGuard(Long.MAX_VALUE, a, Set.of(GiopFrameGuard.REQUEST, GiopFrameGuard.FRAGMENT));
    }

    private static void feedByteByByte(GiopFrameGuard g, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            g.accept(bytes, i, 1);
        }
    }

    private static void write(ReplyWatch out, byte[] bytes) throws IOException {
        out.write(bytes, 0, bytes.length);
    }

    @Test
    void aRequestHoldsItsBytesFromItsHeaderUntilItsReplyIsWritten() throws IOException {
        IntakeBudget budget = new IntakeBudget(1 << 20);
        IntakeAccount a = account(budget);
        GiopFrameGuard in = input(a);
        byte[] req = request(1000, 7);
        in.accept(req, 0, 12);
        assertEquals(1012, budget.used(), "taken when the header is complete, before the body is read");
        in.accept(req, 12, req.length - 12);
        assertEquals(1012, budget.used(), "still held once read: JacORB queues it, the GOA executes it");
        ReplyWatch out = new ReplyWatch(new ByteArrayOutputStream(), a, w -> { });
        write(out, reply(8));
        assertEquals(1012, budget.used(), "a reply to another id gives nothing back");
        byte[] r = reply(7);
        for (int i = 0; i < r.length; i++) {
            out.write(r[i]);
        }
        assertEquals(0, budget.used(), "its reply, even written byte by byte, gives it back");
        assertEquals(1012, budget.peak());
    }

    @Test
    void aLocateReplyAnswersALocateRequestsIdToo() throws IOException {
        IntakeBudget budget = new IntakeBudget(1 << 20);
        IntakeAccount a = account(budget);
        GiopFrameGuard in = input(a);
        in.accept(request(100, 3), 0, 112);
        new ReplyWatch(new ByteArrayOutputStream(), a, w -> { }).write(message(2, LOCATE_REPLY, false, false, 8, 3, 0));
        assertEquals(0, budget.used());
    }

    @Test
    void whatGetsNoReplyOrHasNoIdHereGivesItsBytesBackOnceRead() {
        IntakeBudget budget = new IntakeBudget(1 << 20);
        IntakeAccount a = account(budget);
        GiopFrameGuard in = input(a);
        feedByteByByte(in, message(2, REQUEST, false, false, 100, 1, 0));   // a oneway
        assertEquals(0, budget.used(), "a oneway");
        feedByteByByte(in, message(1, REQUEST, false, false, 100, 2, 3));   // GIOP 1.1: id after service contexts
        assertEquals(0, budget.used(), "a GIOP 1.1 request");
        feedByteByByte(in, message(2, LOCATE_REQUEST, false, false, 100, 3, 0));
        assertEquals(0, budget.used(), "a LocateRequest");
        byte[] half = message(2, REQUEST, true, false, 100, 4, 3);
        in.accept(half, 0, 60);
        assertEquals(112, budget.used(), "held while it is read");
        in.accept(half, 60, half.length - 60);
        assertEquals(112, budget.used(), "a little-endian two-way request is kept");
        a.replied(4);
        assertEquals(0, budget.used());
    }

    @Test
    void fragmentsAddToTheirRequestAndARepeatedIdIsAnsweredOneRequestAtATime() {
        IntakeBudget budget = new IntakeBudget(1 << 20);
        IntakeAccount a = account(budget);
        GiopFrameGuard in = input(a);
        feedByteByByte(in, message(2, REQUEST, false, true, 100, 9, 3));
        feedByteByByte(in, message(2, FRAGMENT, false, false, 50, 9, 0));
        feedByteByByte(in, message(2, FRAGMENT, false, false, 50, 77, 0));   // no such request: given back
        assertEquals(112 + 62, budget.used());
        feedByteByByte(in, request(200, 9));   // the same id again, while the first is unanswered
        assertEquals(112 + 62 + 212, budget.used());
        a.replied(9);
        assertEquals(212, budget.used(), "the first reply answers the first request, fragments included");
        a.replied(9);
        assertEquals(0, budget.used());
        a.replied(9);
        assertEquals(0, budget.used(), "a reply to nothing held gives nothing");
    }

    @Test
    void aReaderWaitsWhileTheBudgetIsSpentAndGoesOnWhenAReplyFreesIt() throws Exception {
        IntakeBudget budget = new IntakeBudget(2500);
        IntakeAccount a = account(budget);
        GiopFrameGuard in = input(a);
        in.accept(request(1000, 1), 0, 1012);
        in.accept(request(1000, 2), 0, 1012);
        CompletableFuture<Void> third = CompletableFuture.runAsync(() -> in.accept(request(1000, 3), 0, 1012));
        assertFalse(waitsFor(third, 300), "the third request's header waits: 3036 bytes would exceed 2500");
        assertEquals(1, holds.get(), "the hold was counted once");
        assertEquals(2024, budget.used());
        a.replied(1);
        third.get(10, TimeUnit.SECONDS);
        assertEquals(2024, budget.used());
        assertTrue(budget.peak() <= 2500);
    }

    @Test
    void aMessageLargerThanTheWholeBudgetIsLetInAlone() throws Exception {
        IntakeBudget budget = new IntakeBudget(500);
        IntakeAccount a = account(budget);
        GiopFrameGuard in = input(a);
        in.accept(request(1000, 1), 0, 1012);
        assertEquals(1012, budget.used(), "nothing else held: it does not wait forever");
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> in.accept(request(10, 2), 0, 22));
        assertFalse(waitsFor(next, 300), "but nothing joins it");
        a.replied(1);
        next.get(10, TimeUnit.SECONDS);
        assertEquals(22, budget.used());
    }

    @Test
    void closingTheConnectionGivesEverythingBackAndReleasesItsWaitingReader() throws Exception {
        IntakeBudget budget = new IntakeBudget(1500);
        IntakeAccount a = account(budget);
        IntakeAccount other = account(budget);
        GiopFrameGuard in = input(a);
        in.accept(request(1000, 1), 0, 1012);
        in.accept(request(100, 2), 0, 50);   // half read
        GiopFrameGuard otherIn = input(other);
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> otherIn.accept(request(1000, 5), 0, 12));
        assertFalse(waitsFor(waiting, 300));
        a.close();
        waiting.get(10, TimeUnit.SECONDS);
        assertEquals(1012, budget.used(), "only the other connection's request is held");
        CompletableFuture<Void> closedWaiter = CompletableFuture.runAsync(() -> input(a).accept(request(1000, 6), 0, 12));
        closedWaiter.get(10, TimeUnit.SECONDS);
        assertEquals(1012, budget.used(), "a closed connection takes nothing more");
        other.close();
        assertEquals(0, budget.used());
    }

    private static boolean waitsFor(CompletableFuture<?> f, long millis) {
        try {
            f.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
