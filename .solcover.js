// solidity-coverage: contracts/test/ holds benchmark and test helpers only (reference vault, mock token).
module.exports = {
  skipFiles: ["test/"],
};
