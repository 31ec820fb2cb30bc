import { expect } from "chai";
import { EventEmitter } from "node:events";
import type { WebSocket } from "ws";
import { MESSAGE_RATE_CLOSE, MessageGate } from "../../../../api/src/doors/graphql/messageGate";

/** The parts of a ws socket the gate uses; graphql-ws' listener is the one attached when the connection is emitted. */
class FakeSocket extends EventEmitter {
  isPaused = false;
  closed?: [number, string];
  terminated = false;
  pause() {
    this.isPaused = true;
  }
  resume() {
    this.isPaused = false;
  }
  close(code: number, reason: string) {
    this.closed = [code, reason];
  }
  terminate() {
    this.terminated = true;
  }
}

const limits = { maxMessagesPerSecond: 1, maxMessageBurst: 3, maxBacklog: 2 };

function gated() {
  const socket = new FakeSocket();
  const handled: string[] = [];
  const gate = MessageGate.open(socket as unknown as WebSocket, limits, () =>
    socket.on("message", (data: string) => handled.push(data)),
  );
  return { socket, handled, gate };
}

describe("graphql-ws message gate", function () {
  it("graphql-ws flood: the message past the burst closes the socket with 1008 and neither it nor any after it reaches graphql-ws", function () {
    const { socket, handled } = gated();
    for (let i = 0; i < 10; i++) socket.emit("message", `m${i}`, false);
    expect(handled).to.deep.equal(["m0", "m1", "m2"]);
    expect(socket.closed).to.deep.equal([
      MESSAGE_RATE_CLOSE,
      "MESSAGE_RATE: more than 3 messages at once or 1 a second",
    ]);
    expect(socket.isPaused).to.equal(true);
  });

  it("backlog: a socket is not read while GRAPHQL_WS_MAX_BACKLOG operations are opening, and is read again as they open", async function () {
    const { socket, gate } = gated();
    const releases: (() => void)[] = [];
    const opening = () => gate.opening(() => new Promise<void>((resolve) => releases.push(resolve)));
    const first = opening();
    expect(socket.isPaused).to.equal(false);
    const second = opening();
    expect(socket.isPaused).to.equal(true);
    releases[0]();
    await first;
    expect(socket.isPaused).to.equal(false);
    releases[1]();
    await second;
    expect(socket.isPaused).to.equal(false);
  });
});
