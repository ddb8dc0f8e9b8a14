package org.fts.jgroups;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

import org.fts.gc.internal.Board;
import org.jgroups.Header;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;

/**
 * Whiteboard entries riding on a JGroups message ({@link Board}): a header, so that any message of the binding
 * can carry them; {@link #alone} marks a message sent only for them (its payload is empty and is not the
 * protocol's). Used by the jgroups and raft bindings.
 */
public final class BoardHeader extends Header {
    /** The header's type, registered with JGroups; also the id it is stored under in a message. */
    public static final short ID = 3917;

    static {
        ClassConfigurator.addIfAbsent(ID, BoardHeader.class);
    }

    private List<Board.Item> items = List.of();
    private boolean alone;

    public BoardHeader() {
    }

    private BoardHeader(List<Board.Item> items, boolean alone) {
        this.items = List.copyOf(items);
        this.alone = alone;
    }

    /** Makes sure the type is registered before the first message arrives. */
    public static void register() {
        // the static initialiser did it
    }

    /** Attaches {@code items} to {@code msg} (nothing if empty); returns {@code msg}. */
    public static Message attach(Message msg, List<Board.Item> items) {
        return items.isEmpty() ? msg : msg.putHeader(ID, new BoardHeader(items, false));
    }

    /** A message of its own for {@code items}. */
    public static Message alone(Message msg, List<Board.Item> items) {
        return msg.putHeader(ID, new BoardHeader(items, true));
    }

    /** The header {@code msg} carries, or null. */
    public static BoardHeader of(Message msg) {
        return msg.getHeader(ID);
    }

    public List<Board.Item> items() {
        return items;
    }

    /** Whether the message carries nothing but the entries. */
    public boolean isAlone() {
        return alone;
    }

    @Override
    public short getMagicId() {
        return ID;
    }

    @Override
    public Supplier<? extends Header> create() {
        return BoardHeader::new;
    }

    @Override
    public int serializedSize() {
        return 1 + Board.size(items);
    }

    @Override
    public void writeTo(DataOutput out) throws IOException {
        out.writeBoolean(alone);
        Board.write(items, out);
    }

    @Override
    public void readFrom(DataInput in) throws IOException {
        alone = in.readBoolean();
        items = Board.read(in);
    }

    @Override
    public String toString() {
        return "board" + (alone ? "(alone)" : "") + items.size();
    }
}
