"""the tournament's money: what each player paid, the prize fund and the prizes

``tournament``: what the organiser keeps of the takings (``keep_kind`` and
``keep_value``: an amount in cents or hundredths of a per cent), whether the
lost-game money goes to the prize fund, the prizes (money shares or items) and
the joke prize of the last place.  ``tournament_entrant``: what a player paid
at the cash desk and when.  Existing tournaments get the defaults: nothing
kept, the lost-game money to the fund, money prizes without shares yet.

Revision ID: f3b9d2a7c1e4
Revises: e7a1c3d5f9b2
Create Date: 2026-11-27 20:15:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'f3b9d2a7c1e4'
down_revision = 'e7a1c3d5f9b2'
branch_labels = None
depends_on = None


def upgrade():
    # ALTER TABLE … ADD COLUMN, with defaults for the rows there (no copy of the table)
    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('keep_kind', sa.String(length=8), nullable=False, server_default='amount'))
        batch_op.add_column(sa.Column('keep_value', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('lost_money_to_fund', sa.Boolean(), nullable=False, server_default=sa.true()))
        batch_op.add_column(sa.Column('prize_mode', sa.String(length=8), nullable=False, server_default='money'))
        batch_op.add_column(sa.Column('prize_shares', sa.JSON(), nullable=False, server_default='[]'))
        batch_op.add_column(sa.Column('prize_items', sa.JSON(), nullable=False, server_default='[]'))
        batch_op.add_column(sa.Column('joke_prize', sa.String(length=100), nullable=False, server_default=''))

    with op.batch_alter_table('tournament_entrant', schema=None, recreate='never') as batch_op:
        batch_op.add_column(sa.Column('paid_cents', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('paid_at', sa.DateTime(), nullable=True))


def downgrade():
    # ALTER TABLE … DROP COLUMN (SQLite 3.35+): a batch copy of the table would drop and
    # make it anew, which the players, rounds and tables referring to it forbid
    with op.batch_alter_table('tournament_entrant', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('paid_at')
        batch_op.drop_column('paid_cents')

    with op.batch_alter_table('tournament', schema=None, recreate='never') as batch_op:
        batch_op.drop_column('joke_prize')
        batch_op.drop_column('prize_items')
        batch_op.drop_column('prize_shares')
        batch_op.drop_column('prize_mode')
        batch_op.drop_column('lost_money_to_fund')
        batch_op.drop_column('keep_value')
        batch_op.drop_column('keep_kind')
