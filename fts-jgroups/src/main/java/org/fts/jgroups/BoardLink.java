package org.fts.jgroups;

import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.Whiteboard;
import org.fts.gc.internal.Board;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;

/**
 * The whiteboard on a JGroups channel ({@link Board}, {@link BoardHeader}): entries ride on the control messages
 * the binding sends anyway (acknowledgements, commits, grants: never held by flow control), and a refresh tick sends
 * what found no ride on a message of its own. Used by the jgroups
 * and raft bindings.
 */
public final class BoardLink {
    private final Board board;
    private volatile java.util.concurrent.Future<?> refresh;

    public BoardLink(MemberId self) {
        BoardHeader.register();
        this.board = new Board(self);
    }

    public Board board() {
        return board;
    }

    /**
     * {@code msg}, about to go to {@code to} alone, with the own entry if {@code to} has not had it. Only control
     * messages carry entries (flag {@code NO_FC}): a data message may wait behind flow control for seconds.
     */
    public Message unicast(Message msg, MemberId to) {
        if (!msg.isFlagSet(Message.Flag.NO_FC)) {
            return msg;
        }
        Board.Item own = board.forUnicast(to);
        return own == null ? msg : BoardHeader.attach(msg, List.of(own));
    }

    /** {@code msg}, about to be multicast, with every entry due, if it is a control message (as {@link #unicast}). */
    public Message multicast(Message msg) {
        if (!msg.isFlagSet(Message.Flag.NO_FC)) {
            return msg;
        }
        return BoardHeader.attach(msg, board.forMulticast());
    }

    /** Takes the entries {@code msg} carries; true if it carried nothing else (the binding then drops it). */
    public boolean received(Message msg) {
        BoardHeader h = BoardHeader.of(msg);
        if (h == null) {
            return false;
        }
        board.merge(h.items(), msg.getDest() != null);
        return h.isAlone();
    }

    /**
     * Starts the refresh on {@code ch}'s own timer (JGroups' transport timer: a send that waits there holds up
     * none of the binding's threads): every {@link Whiteboard#REFRESH_MILLIS}, the entries that found no ride since
     * go on a message of their own. Call it once joined; {@link #stop} ends it.
     */
    public void start(JChannel ch) {
        refresh = ch.getProtocolStack().getTransport().getTimer().scheduleWithFixedDelay(() -> tick(ch),
                Whiteboard.REFRESH_MILLIS, Whiteboard.REFRESH_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    public void stop() {
        java.util.concurrent.Future<?> f = refresh;
        if (f != null) {
            f.cancel(false);
        }
    }

    private void tick(JChannel ch) {
        List<Board.Item> due = board.due();
        if (due.isEmpty()) {
            return;
        }
        try {
            ch.send(BoardHeader.alone(new BytesMessage(null, new byte[0]), due)
                    .setFlag(Message.Flag.NO_FC, Message.Flag.OOB).setFlag(Message.TransientFlag.DONT_LOOPBACK));
        } catch (Exception e) {
            // the next change is due again; a closed channel sends nothing more anyway
        }
    }
}
