import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { AgentBadges } from "../../../typechain-types";

const Milestone = {
  Registered: 0,
  Established: 1,
  CoreContributor: 2,
} as const;

async function deployBadges() {
  const [admin, minter, agent, other, stranger] = await ethers.getSigners();
  const badges = (await ethers.deployContract("AgentBadges", [admin.address])) as unknown as AgentBadges;
  await badges.grantRole(await badges.MINTER_ROLE(), minter.address);
  return { badges, admin, minter, agent, other, stranger };
}

function decodeDataUri(uri: string, prefix: string): string {
  expect(uri.startsWith(prefix)).to.equal(true);
  return Buffer.from(uri.slice(prefix.length), "base64").toString("utf8");
}

describe("AgentBadges", () => {
  it("mints sequential locked badges per milestone, with events", async () => {
    const { badges, minter, agent } = await loadFixture(deployBadges);
    expect(await badges.connect(minter).mint.staticCall(agent.address, Milestone.Registered)).to.equal(1n);
    const tx = badges.connect(minter).mint(agent.address, Milestone.Registered);
    await expect(tx).to.emit(badges, "Transfer").withArgs(ethers.ZeroAddress, agent.address, 1n);
    await expect(tx).to.emit(badges, "Locked").withArgs(1n);
    await expect(tx).to.emit(badges, "BadgeMinted").withArgs(agent.address, 1n, Milestone.Registered, minter.address);
    await badges.connect(minter).mint(agent.address, Milestone.CoreContributor);
    expect(await badges.totalMinted()).to.equal(2n);
    expect(await badges.balanceOf(agent.address)).to.equal(2n);
    expect(await badges.ownerOf(2n)).to.equal(agent.address);
    expect(await badges.badgeOf(agent.address, Milestone.Registered)).to.equal(1n);
    expect(await badges.badgeOf(agent.address, Milestone.Established)).to.equal(0n);
    expect(await badges.locked(1n)).to.equal(true);
  });

  it("lists a wallet's badges in milestone order with their mint time", async () => {
    const { badges, minter, agent, other } = await loadFixture(deployBadges);
    await badges.connect(minter).mint(agent.address, Milestone.CoreContributor);
    const t1 = await time.latest();
    await badges.connect(minter).mint(other.address, Milestone.Registered);
    await badges.connect(minter).mint(agent.address, Milestone.Registered);
    const t3 = await time.latest();
    const list = await badges.badgesOf(agent.address);
    expect(list.map((b) => [b.tokenId, b.milestone, b.mintedAt])).to.deep.equal([
      [3n, BigInt(Milestone.Registered), BigInt(t3)],
      [1n, BigInt(Milestone.CoreContributor), BigInt(t1)],
    ]);
    expect(await badges.badgesOf(ethers.ZeroAddress.replace(/0$/, "1"))).to.deep.equal([]);
  });

  it("refuses a second badge for the same milestone and wallet, a zero wallet and a non-minter", async () => {
    const { badges, minter, agent, stranger } = await loadFixture(deployBadges);
    await badges.connect(minter).mint(agent.address, Milestone.Established);
    await expect(badges.connect(minter).mint(agent.address, Milestone.Established))
      .to.be.revertedWithCustomError(badges, "BadgeAlreadyAwarded")
      .withArgs(agent.address, Milestone.Established, 1n);
    await expect(badges.connect(minter).mint(ethers.ZeroAddress, Milestone.Established)).to.be.revertedWithCustomError(
      badges,
      "BadgeZeroAddress",
    );
    await expect(badges.connect(stranger).mint(agent.address, Milestone.Registered))
      .to.be.revertedWithCustomError(badges, "AccessControlUnauthorizedAccount")
      .withArgs(stranger.address, await badges.MINTER_ROLE());
  });

  it("refuses every transfer and approval", async () => {
    const { badges, minter, agent, other } = await loadFixture(deployBadges);
    await badges.connect(minter).mint(agent.address, Milestone.Registered);
    await expect(badges.connect(agent).transferFrom(agent.address, other.address, 1n))
      .to.be.revertedWithCustomError(badges, "BadgeSoulbound")
      .withArgs(1n);
    await expect(badges.connect(agent)["safeTransferFrom(address,address,uint256)"](agent.address, other.address, 1n))
      .to.be.revertedWithCustomError(badges, "BadgeSoulbound")
      .withArgs(1n);
    await expect(badges.connect(agent).approve(other.address, 1n))
      .to.be.revertedWithCustomError(badges, "BadgeSoulbound")
      .withArgs(1n);
    await expect(badges.connect(agent).setApprovalForAll(other.address, true))
      .to.be.revertedWithCustomError(badges, "BadgeSoulbound")
      .withArgs(0n);
  });

  it("serves onchain JSON metadata with name, milestone, agent, date and an SVG image", async () => {
    const { badges, minter, agent } = await loadFixture(deployBadges);
    await badges.connect(minter).mint(agent.address, Milestone.CoreContributor);
    const mintedAt = await time.latest();
    const json = JSON.parse(decodeDataUri(await badges.tokenURI(1n), "data:application/json;base64,"));
    expect(json.name).to.equal("NAP Agent Badge #1: core_contributor");
    expect(json.description).to.equal(
      "Non-transferable badge for an agent that reached the core_contributor tier milestone on NAP.",
    );
    expect(json.attributes).to.deep.equal([
      { trait_type: "milestone", value: "core_contributor" },
      { trait_type: "agent", value: agent.address.toLowerCase() },
      { display_type: "date", trait_type: "minted_at", value: mintedAt },
    ]);
    const svg = decodeDataUri(json.image, "data:image/svg+xml;base64,");
    expect(svg).to.match(/^<svg [^>]+>.*core_contributor<\/text><\/svg>$/);
    await badges.connect(minter).mint(agent.address, Milestone.Registered);
    await badges.connect(minter).mint(agent.address, Milestone.Established);
    for (const [id, label] of [
      [2n, "registered"],
      [3n, "established"],
    ] as const) {
      const meta = JSON.parse(decodeDataUri(await badges.tokenURI(id), "data:application/json;base64,"));
      expect(meta.attributes[0].value).to.equal(label);
    }
  });

  it("reverts tokenURI and locked for an unknown token", async () => {
    const { badges } = await loadFixture(deployBadges);
    await expect(badges.tokenURI(9n)).to.be.revertedWithCustomError(badges, "ERC721NonexistentToken").withArgs(9n);
    await expect(badges.locked(9n)).to.be.revertedWithCustomError(badges, "ERC721NonexistentToken").withArgs(9n);
  });

  it("declares ERC-721, metadata, AccessControl and ERC-5192 through ERC-165", async () => {
    const { badges } = await loadFixture(deployBadges);
    for (const id of ["0x80ac58cd", "0x5b5e139f", "0x7965db0b", "0xb45a3c0e", "0x01ffc9a7"]) {
      expect(await badges.supportsInterface(id)).to.equal(true);
    }
    expect(await badges.supportsInterface("0xffffffff")).to.equal(false);
    expect(await badges.name()).to.equal("NAP Agent Badge");
    expect(await badges.symbol()).to.equal("NAPBADGE");
  });
});
