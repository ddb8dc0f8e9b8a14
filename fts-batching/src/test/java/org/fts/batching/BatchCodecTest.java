package org.fts.batching;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class BatchCodecTest {
    @Test
    void roundTripsEmptySmallAndLargeMessages() {
        List<byte[]> in = new ArrayList<>();
        in.add(new byte[0]);
        in.add(new byte[] {1, 2, 3});
        byte[] big = new byte[300_000];
        new Random(7).nextBytes(big);
        in.add(big);
        for (int i = 0; i < 200; i++) {
            in.add(new byte[i]);
        }
        List<byte[]> out = BatchCodec.decode(BatchCodec.encode(in));
        assertEquals(in.size(), out.size());
        for (int i = 0; i < in.size(); i++) {
            assertArrayEquals(in.get(i), out.get(i), "message " + i);
        }
        assertEquals(0, BatchCodec.decode(BatchCodec.encode(List.of())).size());
    }

    @Test
    void overheadIsOneHeaderAndAVarintPerMessage() {
        List<byte[]> msgs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            msgs.add(new byte[100]);
        }
        byte[] b = BatchCodec.encode(msgs);
        assertEquals(2 + 1 + 100 * (1 + 100), b.length, "2-byte header, 1-byte count, 1-byte length each");
    }

    @Test
    void everyTruncationAndCorruptionIsRejectedWhole() {
        byte[] good = BatchCodec.encode(List.of(new byte[] {1, 2}, new byte[200], new byte[] {3}));
        for (int cut = 0; cut < good.length; cut++) {
            byte[] t = Arrays.copyOf(good, cut);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BatchCodec.decode(t));
            assertTrue(e.getMessage().startsWith("malformed batch"), e.getMessage());
        }
        byte[] extra = Arrays.copyOf(good, good.length + 1);
        assertThrows(IllegalArgumentException.class, () -> BatchCodec.decode(extra));
        byte[] badMagic = good.clone();
        badMagic[0] = 0;
        assertThrows(IllegalArgumentException.class, () -> BatchCodec.decode(badMagic));
        byte[] hugeCount = {(byte) 0xB7, 1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
        assertThrows(IllegalArgumentException.class, () -> BatchCodec.decode(hugeCount));
        byte[] endlessVarint = {(byte) 0xB7, 1, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1};
        assertThrows(IllegalArgumentException.class, () -> BatchCodec.decode(endlessVarint));
    }

    /** Wire version 2 (docs/upgrades.md): the same messages, and a checksum that catches any byte changed. */
    @Test
    void versionTwoEndsInAChecksumThatCatchesEveryChangedByte() {
        List<byte[]> in = List.of(new byte[] {1, 2}, new byte[200], new byte[] {3});
        byte[] v2 = BatchCodec.encode(2, in);
        assertEquals(BatchCodec.encode(1, in).length + 4, v2.length);
        assertEquals(2, v2[1]);
        List<byte[]> out = BatchCodec.decode(v2, 0, 1, 2);
        assertEquals(3, out.size());
        assertArrayEquals(in.get(1), out.get(1));
        assertEquals(3, BatchCodec.decode(BatchCodec.encode(1, in), 0, 1, 2).size(), "a 1-2 reader reads version 1");
        for (int i = 2; i < v2.length; i++) {   // past the header: a changed magic or version is caught before
            byte[] damaged = v2.clone();
            damaged[i] ^= 0x10;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> BatchCodec.decode(damaged, 0, 1, 2), "byte " + i);
            assertTrue(e.getMessage().startsWith("malformed batch"), e.getMessage());
        }
        for (int cut = 0; cut < v2.length; cut++) {
            byte[] t = Arrays.copyOf(v2, cut);
            assertThrows(IllegalArgumentException.class, () -> BatchCodec.decode(t, 0, 1, 2), "cut at " + cut);
        }
    }

    /** A reader that does not speak a batch's version says so, apart from damage: it cannot follow the group. */
    @Test
    void aBatchOfAVersionTheReaderDoesNotSpeakIsAVersionExceptionNamingBoth() {
        byte[] v2 = BatchCodec.encode(2, List.of(new byte[] {7}));
        BatchCodec.VersionException e = assertThrows(BatchCodec.VersionException.class,
                () -> BatchCodec.decode(v2, 0, 1, 1));
        assertEquals(2, e.version());
        assertEquals("a batch of wire version 2, and this build speaks wire version 1", e.getMessage());
        BatchCodec.VersionException older = assertThrows(BatchCodec.VersionException.class,
                () -> BatchCodec.decode(BatchCodec.encode(1, List.of()), 0, 2, 3));
        assertTrue(older.getMessage().endsWith("speaks wire versions 2-3"), older.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BatchCodec.encode(0, List.of()));
    }
}
