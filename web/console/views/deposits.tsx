export function DepositsView() {
  return (
    <section>
      <h1>Deposits</h1>
    </section>
  );
}
