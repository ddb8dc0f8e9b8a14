package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.fts.gc.MemberId;
import org.junit.jupiter.api.Test;

/** The casts' wire forms: each type round-trips with its tag, and anything else is refused, never guessed. */
class CastTest {
    private static final Request REQUEST = new Request(new RequestId("client-ü", 42), "r1",
            "counter".getBytes(StandardCharsets.UTF_8), "increment", 2, true, 0x05010001, 0x00010109, 4,
            new byte[] {1, 2, 3, 4, 5}, false, 1_700_000_000_123L, 1_700_000_001_623L);

    @Test
    void anInvocationRoundTripsEveryField() {
        byte[] wire = Cast.encode(new Cast.Invocation(REQUEST));
        assertEquals(Cast.INVOCATION, wire[0]);
        Request r = ((Cast.Invocation) Cast.decode(wire)).request();
        assertEquals(REQUEST.id(), r.id());
        assertEquals("r1", r.origin());
        assertArrayEquals(REQUEST.objectId(), r.objectId());
        assertEquals("increment", r.operation());
        assertEquals(2, r.giopMinor());
        assertEquals(true, r.littleEndian());
        assertEquals(REQUEST.tcs(), r.tcs());
        assertEquals(REQUEST.tcsw(), r.tcsw());
        assertEquals(4, r.pad());
        assertArrayEquals(REQUEST.body(), r.body());
        assertEquals(false, r.responseExpected());
        assertEquals(REQUEST.timestamp(), r.timestamp());
        assertEquals(REQUEST.keepUntil(), r.keepUntil());
    }

    @Test
    void anAnnouncementAndAMarkerRoundTrip() {
        Cast announce = new Cast.Announce("r3", "127.0.0.1:4711");
        assertEquals(announce, Cast.decode(Cast.encode(announce)));
        Cast marker = new Cast.StateMarker("nonce-1", new MemberId("r0"), new MemberId("r2"));
        byte[] wire = Cast.encode(marker);
        assertEquals(Cast.STATE_MARKER, wire[0]);
        assertEquals(marker, Cast.decode(wire));
    }

    @Test
    void aBackupAndARestoreRoundTripAndARestoreThatOverstatesItsStateIsRefused() {
        Cast backup = new Cast.Backup("n-1", new MemberId("r1#ab12cd"));
        byte[] wire = Cast.encode(backup);
        assertEquals(Cast.BACKUP, wire[0]);
        assertEquals(backup, Cast.decode(wire));
        byte[] state = {9, 8, 7, 6};
        byte[] restoreWire = Cast.encode(new Cast.Restore("n-2", new MemberId("r0"), true, state));
        assertEquals(Cast.RESTORE, restoreWire[0]);
        Cast.Restore r = (Cast.Restore) Cast.decode(restoreWire);
        assertEquals("n-2", r.nonce());
        assertEquals(new MemberId("r0"), r.taker());
        assertEquals(true, r.force());
        assertArrayEquals(state, r.snapshot());
        byte[] overstated = restoreWire.clone();
        overstated[overstated.length - state.length - 1] = 100;   // the length's low byte: 100 bytes announced
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(overstated));
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(Arrays.copyOf(restoreWire,
                restoreWire.length - 1)));
    }

    @Test
    void anUnknownTagAnEmptyOrATruncatedCastIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(new byte[] {99, 0, 1, 'x'}));
        byte[] oldFormat = {2, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 7};   // an earlier version's request: version byte 2
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(oldFormat));
        byte[] announce = Cast.encode(new Cast.Announce("r3", "127.0.0.1:4711"));
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(Arrays.copyOf(announce, announce.length + 1)),
                "trailing bytes");
        byte[] request = Cast.encode(new Cast.Invocation(REQUEST));
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(Arrays.copyOf(request, request.length + 2)),
                "trailing bytes");
        byte[] marker = Cast.encode(new Cast.StateMarker("n", new MemberId("r0"), new MemberId("r1")));
        assertThrows(IllegalArgumentException.class, () -> Cast.decode(Arrays.copyOf(marker, marker.length - 1)));
        byte[] invocation = Cast.encode(new Cast.Invocation(REQUEST));
        for (int cut = 1; cut < invocation.length; cut += 7) {
            byte[] truncated = Arrays.copyOf(invocation, cut);
            assertThrows(IllegalArgumentException.class, () -> Cast.decode(truncated), "cut at " + cut);
        }
    }
}
